#!/bin/bash
# Boot safety with --active-low: the same checks as 10-boot-safety with the physical level
# inverted (idle high, press low).
ST_ACTIVE_LOW=1 exec bash "$(dirname "${BASH_SOURCE[0]}")/10-boot-safety.sh"
