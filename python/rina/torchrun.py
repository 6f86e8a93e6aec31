# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""torchrun for Debian 12: `python3 -m rina.torchrun ARGS` is
`torchrun ARGS` (torch.distributed.run) with one fix.

torch 1.13's elastic launcher parses --redirects and --tee ("0" by
default) by iterating the IntFlag Std, which under Python 3.11 no longer
yields the zero member NONE: every launch fails in to_map with
"'NoneType' object has no attribute 'get'". This maps the numbers
0..3 to their flags before torchrun reads them; nothing else changes.
"""
import re
import sys

from torch.distributed.elastic.multiprocessing import api as _api


def _fixed_from_str(vm):
    def to_std(v):
        return _api.Std(int(v))
    if re.match(_api._VALUE_REGEX, vm):
        return to_std(vm)
    if re.match(_api._MAPPING_REGEX, vm):
        return {int(i): to_std(v) for i, v in
                (m.split(":") for m in vm.split(","))}
    raise ValueError("%s does not match: <%s> or <%s>"
                     % (vm, _api._VALUE_REGEX, _api._MAPPING_REGEX))


if _api.Std.from_str("0") is None:		# the Python 3.11 breakage
    _api.Std.from_str = staticmethod(_fixed_from_str)


def main():
    from torch.distributed import run
    run.main()


if __name__ == "__main__":
    sys.exit(main())
