"""`python -m evo_ledger`: the command line, as the `evo-ledger` command runs it."""

import sys

from evo_ledger.cli.main import main

sys.exit(main())
