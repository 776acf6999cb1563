from gpulane.cli.app import run

run()
