#!/usr/bin/env python3
# Derives kernels/median.cl's selection networks MED_SEL9 / MED_SEL25: the median of a 3x3 or
# 5x5 window whose columns are already sorted. Starts from the classic 19-exchange 3x3 median
# network and Devillard's 99-exchange 5x5 one (below, as the kernel had them), drops every
# compare-exchange whose removal keeps the median right on all 0-1 inputs with sorted columns
# (the 0-1 principle holds on that input set: monotone maps keep columns sorted), then keeps
# only the min / max halves the median needs, and checks the result exhaustively again.
# Prints the two #defines. Usage: python3 scripts/median_networks.py
import itertools, re, sys
src = r"""
#define MED_NET9                                                                              \
    MED_CX(1, 2) MED_CX(4, 5) MED_CX(7, 8) MED_CX(0, 1) MED_CX(3, 4) MED_CX(6, 7) MED_CX(1, 2) \
    MED_CX(4, 5) MED_CX(7, 8) MED_CX(0, 3) MED_CX(5, 8) MED_CX(4, 7) MED_CX(3, 6) MED_CX(1, 4) \
    MED_CX(2, 5) MED_CX(4, 7) MED_CX(4, 2) MED_CX(6, 4) MED_CX(4, 2)

#define MED_NET25                                                                                \
    MED_CX(0, 1) MED_CX(3, 4) MED_CX(2, 4) MED_CX(2, 3) MED_CX(6, 7) MED_CX(5, 7) MED_CX(5, 6)   \
    MED_CX(9, 10) MED_CX(8, 10) MED_CX(8, 9) MED_CX(12, 13) MED_CX(11, 13) MED_CX(11, 12)        \
    MED_CX(15, 16) MED_CX(14, 16) MED_CX(14, 15) MED_CX(18, 19) MED_CX(17, 19) MED_CX(17, 18)    \
    MED_CX(21, 22) MED_CX(20, 22) MED_CX(20, 21) MED_CX(23, 24) MED_CX(2, 5) MED_CX(3, 6)        \
    MED_CX(0, 6) MED_CX(0, 3) MED_CX(4, 7) MED_CX(1, 7) MED_CX(1, 4) MED_CX(11, 14)              \
    MED_CX(8, 14) MED_CX(8, 11) MED_CX(12, 15) MED_CX(9, 15) MED_CX(9, 12) MED_CX(13, 16)        \
    MED_CX(10, 16) MED_CX(10, 13) MED_CX(20, 23) MED_CX(17, 23) MED_CX(17, 20) MED_CX(21, 24)    \
    MED_CX(18, 24) MED_CX(18, 21) MED_CX(19, 22) MED_CX(8, 17) MED_CX(9, 18) MED_CX(0, 18)       \
    MED_CX(0, 9) MED_CX(10, 19) MED_CX(1, 19) MED_CX(1, 10) MED_CX(11, 20) MED_CX(2, 20)         \
    MED_CX(2, 11) MED_CX(12, 21) MED_CX(3, 21) MED_CX(3, 12) MED_CX(13, 22) MED_CX(4, 22)        \
    MED_CX(4, 13) MED_CX(14, 23) MED_CX(5, 23) MED_CX(5, 14) MED_CX(15, 24) MED_CX(6, 24)        \
    MED_CX(6, 15) MED_CX(7, 16) MED_CX(7, 19) MED_CX(13, 21) MED_CX(15, 23) MED_CX(7, 13)        \
    MED_CX(7, 15) MED_CX(1, 9) MED_CX(3, 11) MED_CX(5, 17) MED_CX(11, 17) MED_CX(9, 17)          \
    MED_CX(4, 10) MED_CX(6, 12) MED_CX(7, 14) MED_CX(4, 6) MED_CX(4, 7) MED_CX(12, 14)           \
    MED_CX(10, 14) MED_CX(6, 7) MED_CX(10, 12) MED_CX(6, 10) MED_CX(6, 17) MED_CX(12, 17)        \
    MED_CX(7, 17) MED_CX(7, 10) MED_CX(12, 18) MED_CX(7, 12) MED_CX(10, 18) MED_CX(12, 20)       \
    MED_CX(10, 20) MED_CX(10, 12)


"""
def net(name):
    m=re.search(r'#define '+name+r'\s*\\\n(.*?)\n\n', src, re.S)
    return [(int(a),int(b)) for a,b in re.findall(r'MED_CX\((\d+), (\d+)\)', m.group(1))]
def colsorted_inputs(D):
    # each column: a sorted 0-1 column = k ones at the bottom (k=0..D)
    cols=[]
    for k in range(D+1):
        cols.append([0]*(D-k)+[1]*k)
    ins=[]
    for combo in itertools.product(range(D+1), repeat=D):
        p=[0]*(D*D)
        for dx,k in enumerate(combo):
            for dy in range(D): p[dy*D+dx]=cols[k][dy]
        ins.append(p)
    # wire i as a bitset over the inputs: bit n = value of wire i in input n
    return [sum(1<<n for n,p in enumerate(ins) if p[i]) for i in range(D*D)], len(ins)
def run(ops, X):
    p=list(X[0])
    for (a,b) in ops:
        lo=p[a]&p[b]; hi=p[a]|p[b]; p[a]=lo; p[b]=hi
    return p
def ok(ops, X, mid, expect):
    return run(ops,X)[mid]==expect
def prune(name, D):
    ops=net(name); X=colsorted_inputs(D); N=D*D; mid=N//2
    wires,n=X
    expect=0
    for k in range(n):
        if sum((w>>k)&1 for w in wires) > mid: expect|=1<<k
    assert ok(ops,X,mid,expect)
    changed=True
    while changed:
        changed=False
        for i in range(len(ops)):
            t=ops[:i]+ops[i+1:]
            if ok(t,X,mid,expect):
                ops=t; changed=True; break
    # liveness -> min/max ops
    need={mid}; out=[]
    for (a,b) in reversed(ops):
        na, nb = a in need, b in need
        if na and nb: out.append(('cx',a,b))
        elif na: out.append(('min',a,b)); need.add(b)
        elif nb: out.append(('max',a,b)); need.add(a)
    out.reverse()
    # verify final min/max program on column-sorted inputs
    p=list(X[0])
    for (k,a,b) in out:
        lo=p[a]&p[b]; hi=p[a]|p[b]
        if k=='cx': p[a]=lo; p[b]=hi
        elif k=='min': p[a]=lo
        else: p[b]=hi
    assert p[mid]==expect
    cost=sum(2 if k=='cx' else 1 for k,_,_ in out)
    print(name, 'original', len(net(name)), 'CX; pruned ops', cost, 'min/max', file=sys.stderr)
    return out
def colsort_check(ops, D):
    for bits in itertools.product([0,1],repeat=D):
        p=list(bits)
        for a,b in ops:
            if p[a]>p[b]: p[a],p[b]=p[b],p[a]
        assert p==sorted(p),(bits,p)
sort3=[(0,1),(1,2),(0,1)]
sort5=[(0,1),(3,4),(2,4),(2,3),(0,3),(0,2),(1,4),(1,3),(1,2)]
colsort_check(sort3,3); colsort_check(sort5,5)
def emit(name, out):
    s='#define %s \\\n' % name
    parts=[]
    for k,a,b in out:
        parts.append({'cx':'MED_CX','min':'MED_MIN','max':'MED_MAX'}[k]+'(%d, %d)'%(a,b))
    lines=[]; line='   '
    for p in parts:
        if len(line)+len(p)+1>96: lines.append(line); line='   '
        line+=' '+p
    lines.append(line)
    return s+' \\\n'.join(lines)+'\n'
o9=prune('MED_NET9',3); o25=prune('MED_NET25',5)
print(emit('MED_SEL9', o9)); print(emit('MED_SEL25', o25))
