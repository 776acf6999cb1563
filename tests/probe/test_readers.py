from gpulane.probe import readers as r


def test_nvidia_query_reads_name_driver_and_compute_capability(fixture_text):
    reading = r.read_nvidia_smi_query(fixture_text("nvidia-smi-query-4090.csv"))
    assert reading.status == "ok"
    assert [(g.name, g.driver_version, g.compute_cap) for g in reading.gpus] == [
        ("NVIDIA GeForce RTX 4090", "550.54.14", "8.9")]


def test_nvidia_query_two_gpus(fixture_text):
    reading = r.read_nvidia_smi_query(fixture_text("nvidia-smi-query-two.csv"))
    assert [g.compute_cap for g in reading.gpus] == ["8.9", "8.6"]


def test_nvidia_query_from_an_old_driver_is_unreadable_not_a_crash(fixture_text):
    reading = r.read_nvidia_smi_query(fixture_text("nvidia-smi-query-old-driver.txt"))
    assert reading.status == "unreadable"
    assert "compute_cap" in reading.detail


def test_nvidia_table_reads_header_and_rows(fixture_text):
    reading = r.read_nvidia_smi_table(fixture_text("nvidia-smi-4090.txt"))
    assert (reading.status, reading.driver_version, reading.cuda_version) == ("ok", "550.54.14", "12.4")
    assert [g.name for g in reading.gpus] == ["NVIDIA GeForce RTX 4090"]


def test_nvidia_table_without_driver_says_why(fixture_text):
    reading = r.read_nvidia_smi_table(fixture_text("nvidia-smi-no-driver.txt"))
    assert reading.status == "unreadable"
    assert "cannot reach the NVIDIA driver" in reading.detail


def test_merge_falls_back_to_the_table_when_the_query_fails(fixture_text):
    merged = r.merge_nvidia(r.read_nvidia_smi_query(fixture_text("nvidia-smi-query-old-driver.txt")),
                            r.read_nvidia_smi_table(fixture_text("nvidia-smi-4090.txt")))
    assert merged.status == "ok" and merged.gpus[0].compute_cap is None
    both = r.merge_nvidia(r.read_nvidia_smi_query(fixture_text("nvidia-smi-query-4090.csv")),
                          r.read_nvidia_smi_table(fixture_text("nvidia-smi-4090.txt")))
    assert (both.gpus[0].compute_cap, both.cuda_version) == ("8.9", "12.4")
    assert r.merge_nvidia(r.read_nvidia_smi_query(None), r.read_nvidia_smi_table(None)).status == "not_found"


def test_rocminfo_keeps_gpu_agents_only(fixture_text):
    reading = r.read_rocminfo(fixture_text("rocminfo-gfx1100.txt"))
    assert reading.status == "ok"
    assert [(a.gfx, a.marketing_name) for a in reading.agents] == [("gfx1100", "Radeon RX 7900 XTX")]


def test_rocminfo_broken_install_is_unreadable(fixture_text):
    reading = r.read_rocminfo(fixture_text("rocminfo-broken.txt"))
    assert reading.status == "unreadable" and "libhsa-runtime64" in reading.detail


def test_amd_smi_static_reads_name_target_and_driver(fixture_text):
    reading = r.read_amd_smi_static(fixture_text("amd-smi-static-7900xtx.txt"))
    assert reading.status == "ok"
    assert [(a.gfx, a.marketing_name) for a in reading.agents] == [("gfx1100", "Radeon RX 7900 XTX")]
    assert reading.driver_version == "6.10.5"
    assert r.read_amd_smi_static("garbage").status == "unreadable"


def test_merge_amd_adds_the_driver_from_amd_smi(fixture_text):
    merged = r.merge_amd(r.read_rocminfo(fixture_text("rocminfo-gfx1100.txt")),
                         r.read_amd_smi_static(fixture_text("amd-smi-static-7900xtx.txt")))
    assert (merged.agents[0].gfx, merged.driver_version) == ("gfx1100", "6.10.5")
    assert r.merge_amd(r.read_rocminfo(None), r.read_amd_smi_static(None)).status == "not_found"


def test_os_release_labels(fixture_text):
    assert r.read_os_release(fixture_text("os-release-ubuntu-24.04")).label == "Ubuntu 24.04"
    assert r.read_os_release(fixture_text("os-release-debian-12")).label == "Debian 12"
    assert r.read_os_release(fixture_text("os-release-rhel-9.4")).label == "RHEL 9.4"
    bad = r.read_os_release(fixture_text("os-release-malformed"))
    assert (bad.status, bad.label) == ("unreadable", None)
    assert r.read_os_release(None).status == "not_found"


def test_wsl_kernel_marks_the_os_as_wsl2(fixture_text):
    kernel = r.read_kernel("5.15.167.4-microsoft-standard-WSL2\n")
    assert kernel.wsl and kernel.version == "5.15.167"
    assert r.read_os_release(fixture_text("os-release-ubuntu-24.04"), kernel).platform == "wsl2"
    assert r.read_kernel("6.8.0-45-generic").version == "6.8.0"
    assert r.read_kernel("???").status == "unreadable"


def test_windows_build_numbers():
    assert r.read_windows("10", "10.0.22631").label == "Windows 11"
    assert r.read_windows("10", "10.0.19045").label == "Windows 10"
    assert r.read_windows("10", "junk").status == "unreadable"


def test_torch_report(fixture_text):
    t = r.read_torch_report(fixture_text("torch-report-cu124.json"))
    assert (t.status, t.version, t.cuda, t.hip) == ("ok", "2.5.1+cu124", "12.4", None)
    assert "sm_90" in t.arch_list and t.device_names == ["NVIDIA GeForce RTX 4090"]
    assert r.read_torch_report(fixture_text("torch-report-crash.txt")).status == "unreadable"
    missing = r.read_torch_report('{"import_error": "ModuleNotFoundError: No module named \'torch\'"}')
    assert missing.status == "not_found"
    broken = r.read_torch_report('{"import_error": "OSError: libcudnn.so.9: cannot open shared object file"}')
    assert broken.status == "unreadable" and "libcudnn" in broken.detail
