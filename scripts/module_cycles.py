#!/usr/bin/env python3
"""Module-cycle check: for every crate of the workspace, the `use crate::x` / `crate::x::` edges
between its top-level modules (test code included), and the cycles among them.

Usage: scripts/module_cycles.py [ROOT]   (exit 1 if any crate has a cycle)"""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
crates = []
for dirpath, dirs, files in os.walk(root):
    dirs[:] = [d for d in dirs if d not in ('target', '.git', 'fuzz', 'node_modules')]
    if 'Cargo.toml' in files and os.path.isfile(os.path.join(dirpath, 'src', 'lib.rs')) or \
       'Cargo.toml' in files and os.path.isfile(os.path.join(dirpath, 'src', 'main.rs')):
        crates.append(os.path.join(dirpath, 'src'))
EDGE = re.compile(r'\bcrate::([a-z_][a-z0-9_]*)')
GROUP = re.compile(r'\bcrate::\{([^}]*)\}')
def top_module(src, path):
    rel = os.path.relpath(path, src).split(os.sep)
    name = rel[0][:-3] if rel[0].endswith('.rs') else rel[0]
    return None if name in ('lib', 'main') else name
def cycles(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def sc(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in graph.get(v, ()):
            if w not in index: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index: sc(v)
    return out
bad = 0
for src in sorted(crates):
    graph = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'): continue
            p = os.path.join(dirpath, f); m = top_module(src, p)
            if m is None: continue
            text = open(p, encoding='utf-8').read()
            text = re.sub(r'//[^\n]*', '', text)  # comments and doc links are not edges
            targets = set(EDGE.findall(text))
            for g in GROUP.findall(text):
                targets |= set(re.findall(r'(?:^|,)\s*([a-z_][a-z0-9_]*)', g))
            graph.setdefault(m, set()).update(t for t in targets if t != m)
    mods = set(graph)
    graph = {k: {t for t in v if t in mods} for k, v in graph.items()}
    cyc = cycles(graph)
    name = os.path.relpath(os.path.dirname(src), root)
    if cyc:
        bad += 1
        for c in cyc: print(f'{name}: cycle among {", ".join(c)}')
    else:
        print(f'{name}: no module cycle ({len(mods)} top-level modules)')
sys.exit(1 if bad else 0)
