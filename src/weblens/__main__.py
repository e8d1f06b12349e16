from weblens.cli import main

main()
