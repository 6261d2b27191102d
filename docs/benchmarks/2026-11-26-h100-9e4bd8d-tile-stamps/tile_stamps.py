# Reads the per-tile stamp files that the experiment build of branch next/tile-stamps writes
# (SLUICE_TILE_STAMPS=FILE, SLUICE_TILE_STAMPS_LAUNCH=N: tiles x 8 u64, %globaltimer taken by thread 0 at
# the tile's start, after the rank's barrier, after the look-back's barrier, after the barrier before the
# values are staged, after the one after, at the end; word 7 the SM) and prints each stage's duration.
# Usage: python3 tile_stamps.py FILE...   (the stamp files themselves, 1.9 MB each, are not stored)
import sys, struct, statistics as st
import array
def load(path):
    a=array.array('Q'); a.frombytes(open(path,'rb').read())
    n=len(a)//8
    return [a[i*8:(i+1)*8] for i in range(n)]
for path in sys.argv[1:]:
    t=load(path); n=len(t)
    full=t[:-1]
    t0=min(x[0] for x in full)
    dur=[[x[k+1]-x[k] for k in range(5)] for x in full]
    total=[x[5]-x[0] for x in full]
    span=(max(x[5] for x in full)-t0)/1e3
    names=['load+rank','look-back','keys out+vals load','vals arrive+stage','vals out']
    print(f"{path}: {n} tiles, kernel span {span:.1f} us (first start to last end)")
    for k in range(5):
        col=[d[k] for d in dur]
        print(f"  {names[k]:20s} mean {st.mean(col):8.0f} ns  median {st.median(col):8.0f}  p90 {sorted(col)[int(.9*len(col))]:8.0f}")
    print(f"  {'tile total':20s} mean {st.mean(total):8.0f} ns  median {st.median(total):8.0f}")
    # steady-state throughput: tiles started per us in the middle half
    starts=sorted(x[0]-t0 for x in full)
    q1,q3=starts[len(starts)//4],starts[3*len(starts)//4]
    print(f"  tiles/us in the middle half {(len(starts)//2)/((q3-q1)/1e3):.2f}; concurrent tiles (Little) {st.mean(total)*(len(starts)//2)/(q3-q1):.1f}")
