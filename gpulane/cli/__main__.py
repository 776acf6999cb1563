from gpulane.cli.app import main

main()
