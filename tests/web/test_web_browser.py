"""The web app in a real browser, used as a person would: type, pick, click, read.

Expectations come from the sources: vLLM's GPU installation page says vLLM does not run natively
on Windows (WSL2 or Linux instead); the grid's ✗ cells lead to the document that says no.
Each test saves a screenshot in its temporary folder.
"""

from __future__ import annotations

import pytest

pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

RED = "rgba(207, 34, 46, 1)"  # --no in style.css


def wait(browser, seconds: float = 30):
    return WebDriverWait(browser, seconds)


def test_selector_shows_the_breaking_edge_in_red_and_a_fix(server, browser, tmp_path):
    browser.get(server.base + "/")
    box = browser.find_element(By.ID, "gpu")
    box.send_keys("7900")
    option = wait(browser).until(EC.element_to_be_clickable(
        (By.XPATH, "//ul[@id='gpu-suggestions']/li[normalize-space()='Radeon RX 7900 XTX']")))
    option.click()
    assert box.get_attribute("value") == "Radeon RX 7900 XTX"
    Select(browser.find_element(By.ID, "os")).select_by_visible_text("Windows 11")
    Select(browser.find_element(By.ID, "app")).select_by_visible_text("vLLM")
    browser.find_element(By.ID, "go").click()

    verdict = wait(browser).until(EC.visibility_of_element_located((By.ID, "verdict")))
    assert "not_supported" in verdict.get_attribute("class")
    assert verdict.text.startswith("✗")
    edge = browser.find_element(By.XPATH, "//li[contains(@class,'edge') and contains(@class,'no')]"
                                          "[.//span[@class='reason' and contains(., 'vLLM does not run on Windows')]]")
    reason = edge.find_element(By.CLASS_NAME, "reason")
    assert reason.value_of_css_property("color") == RED
    assert edge.find_element(By.CSS_SELECTOR, "a.fact").text == "vllm-os-windows-native"
    # The chain of seven boxes, the app and OS boxes marked as broken.
    boxes = browser.find_elements(By.CSS_SELECTOR, "ol.chain > li.box")
    assert [b.find_element(By.CLASS_NAME, "layer").text.lower() for b in boxes] == \
        ["gpu", "arch", "os", "driver", "toolkit", "framework", "app"]
    assert "broken" in boxes[2].get_attribute("class") and "broken" in boxes[6].get_attribute("class")
    os_fixes = [f.text for f in browser.find_elements(By.CSS_SELECTOR, "li.fix .change[data-layer='os']")]
    assert any("Linux" in f or "WSL2" in f for f in os_fixes), os_fixes
    # The address is shareable: it names the configuration.
    assert "gpu=Radeon+RX+7900+XTX" in browser.current_url and "os=Windows+11" in browser.current_url
    browser.save_screenshot(str(tmp_path / "selector.png"))


def test_compare_cell_leads_to_its_source(server, browser, tmp_path):
    browser.get(server.base + "/compare")
    first, second = browser.find_elements(By.CSS_SELECTOR, "form.compare-form input[name='gpu']")
    first.send_keys("RX 7900 XTX")
    second.send_keys("RTX 4090")
    browser.find_element(By.ID, "compare-go").click()
    table = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "table.grid")))
    groups = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th.gpu")]
    assert groups == ["Radeon RX 7900 XTX", "GeForce RTX 4090"]
    browser.save_screenshot(str(tmp_path / "compare.png"))

    # The vLLM row's ✗ under Windows 11.
    row = table.find_element(By.XPATH, ".//tr[th[normalize-space()='vLLM']]")
    cross = row.find_element(By.CSS_SELECTOR, "td.cell.not_supported a.cell-link")
    assert "✗" in cross.text
    cross.click()
    edge = wait(browser).until(EC.visibility_of_element_located(
        (By.CSS_SELECTOR, "li.edge.no")))
    assert "does not run on Windows" in edge.text
    edge.find_element(By.CSS_SELECTOR, "a.fact").click()

    wait(browser).until(EC.url_contains("/source/"))
    assert "vLLM installation" in browser.find_element(By.TAG_NAME, "h1").text
    target = browser.find_element(By.ID, "fact-vllm-os-windows-native")
    assert "Windows" in target.text
    assert browser.find_element(By.ID, "source-url").get_attribute("href").startswith(
        "https://github.com/vllm-project/vllm/blob/")
    browser.save_screenshot(str(tmp_path / "source.png"))


def test_query_box_shows_the_caret_error(server, browser, tmp_path):
    browser.get(server.base + "/query")
    box = browser.find_element(By.ID, "q")
    box.send_keys("find gpu where vendor AMD")
    browser.find_element(By.ID, "run").click()
    error = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, ".query-error pre")))
    lines = error.get_attribute("textContent").splitlines()
    assert lines[0].startswith("error: unexpected 'AMD'")
    assert lines[1].strip() == "find gpu where vendor AMD"
    # The caret stands under AMD.
    assert lines[2].index("^") - lines[1].index("find") == len("find gpu where vendor ")
    assert browser.find_element(By.ID, "q").get_attribute("value") == "find gpu where vendor AMD"
    browser.save_screenshot(str(tmp_path / "query.png"))
