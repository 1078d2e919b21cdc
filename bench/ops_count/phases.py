#!/usr/bin/env python3
"""Per-phase callgrind self cost of ops_count.cpp runs: phases.py NAME... reads cg_NAME.out."""
import re,collections,subprocess,sys
d=collections.defaultdict(lambda: collections.defaultdict(int))
for n in sys.argv[1:]:
    # basic_pool's phases: self cost (create and destroy are inlined into
    # them); the column pool's and concurrent_pool's: inclusive cost (their
    # create and destroy make calls).
    for inclusive in ('no','yes'):
        out=subprocess.run(['callgrind_annotate',f'--inclusive={inclusive}','--threshold=100',f'cg_{n}.out'],capture_output=True,text=True).stdout
        for line in out.splitlines():
            if '=>' in line: continue  # a call site's cost, counted where the callee is listed
            if inclusive=='no':
                m=re.match(r'\s*([\d,]+) .*? (phase_\w+)<travpool::(?:\w+::)?basic_pool<Obj(, travpool::layout::interleaved)?>',line)
                if m: d[(m.group(2),'interleaved' if m.group(3) else 'compact')][n]+=int(m.group(1).replace(',',''))
            else:
                # Only the phase's own line (ops_count.cpp:phase_...), once:
                # not the call-tree lines (=>), nor the lines of code inlined
                # into it from other files (a typed pool's create is inlined).
                m=re.match(r'\s*([\d,]+) \([^)]*\)\s+\S*ops_count\.cpp:void (phase_column_\w+)<travpool::(?:\w+::)?basic_column_pool<',line)
                if m: d[(m.group(2),'column_pool')][n]+=int(m.group(1).replace(',',''))
                m=re.match(r'\s*([\d,]+) \([^)]*\)\s+\S*ops_count\.cpp:(?:void|unsigned long) (phase_\w+)<travpool::(?:\w+::)?basic_pool<Obj, travpool::sync::bin_locks>',line)
                if m: d[(m.group(2),'concurrent')][n]+=int(m.group(1).replace(',',''))
names=sys.argv[1:]
print(f"{'phase':22} {'layout':12} "+" ".join(f"{x:>14}" for x in names)+"   "+" ".join(f"{names[i]}/{names[i-1]}" for i in range(1,len(names))))
for k,v in sorted(d.items()):
    print(f"{k[0]:22} {k[1]:12} "+" ".join(f"{v[x]:>14,}" for x in names)+"   "+"   ".join(f"{v[names[i]]/v[names[i-1]]:8.3f}" for i in range(1,len(names))))
