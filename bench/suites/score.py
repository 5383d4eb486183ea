#!/usr/bin/env python3
"""Scores an engine build on a blunder suite made by retro.py.

A position counts as avoided when the engine's move is not the one played
and the reference engine, searching the position after it for 3 seconds,
does not find the defenders a mate. The reference's verdicts are cached in
CACHE (a JSON file), so builds are compared on the same judgements.

Usage: score.py SUITE ENGINE GO REFERENCE CACHE [VARIANT] [OPTIONS]
GO is the search limit as the protocol writes it after `go` ("nodes 300000",
"movetime 100"); OPTIONS are `setoption` lines without the words
`setoption name`, separated by ';' ("WeightsFile value w.txt").
"""
import concurrent.futures
import json
import os
import sys

from retro import search


def main():
    suite, engine, go, reference, cache_file = sys.argv[1:6]
    variant = sys.argv[6] if len(sys.argv) > 6 else 'copenhagen'
    options = sys.argv[7] if len(sys.argv) > 7 else ''
    cache = json.load(open(cache_file)) if os.path.exists(cache_file) else {}
    setup = ''.join(f'setoption name {o.strip()}\n' for o in options.split(';') if o.strip())

    def one(line):
        game, start, moves, played = line.rstrip('\n').split('|')[:4]
        before = moves.split()
        best, _, _ = search(engine, variant, start, before, go, setup)
        if best == played:
            return game, False
        key = f'{start}|{moves}|{best}'
        if key not in cache:
            _, kind, value = search(reference, variant, start, before + [best], 'movetime 3000')
            cache[key] = [kind, value]
        kind, value = cache[key]
        return game, not (kind == 'mate' and value > 0)

    lines = [l for l in open(suite) if not l.startswith('#')]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, lines))
    json.dump(cache, open(cache_file, 'w'))
    avoided = sum(1 for _, ok in results if ok)
    print(f'{engine} go {go} {options}: avoided {avoided}/{len(results)}')
    print(' '.join(f"{g}:{'+' if ok else '-'}" for g, ok in results))


if __name__ == '__main__':
    main()
