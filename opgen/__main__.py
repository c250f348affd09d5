from opgen.cli import main

main()
