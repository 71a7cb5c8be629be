#!/bin/bash
# high-contention vacation (the configuration where the transaction-free build fails its check)
for r in $(seq 1 20); do for t in 2 4; do
  /tmp/stamp/run1.sh vacationC orec_eager $t c$r
  if [ $r -le 5 ]; then /tmp/stamp/run1.sh vacationC adaptive $t c$r; /tmp/stamp/run1.sh vacationC orec_lazy $t c$r; fi
  if [ $r -le 3 ]; then /tmp/stamp/run1.sh vacationC libitm $t c$r; fi
done; done
