#!/usr/bin/env python3
"""Finds the attackers' losing moves in a match's records: a blunder suite.

For each game the named engine lost as the attackers, walks back over its
moves from the first one after which either side announced a mate, searching
each position with a reference engine for MS milliseconds; the first position
(from the end) the reference does not find lost is where the game was thrown
away, if the reference finds the move played there lost. One line a blunder:

    game|start|moves before|move played|reference's move|reference's score|score after the played move

Usage: retro.py RECORDS NAME ENGINE MS [PART NPARTS] > suite.txt
(run PART 0..NPARTS-1 in parallel and concatenate). Lines beginning with '#'
name the games where no such move was found.
"""
import subprocess
import sys


def search(engine, variant, start, moves, go, setup=''):
    """The engine's best move and its last exact score ('cp'/'mate', value);
    `setup` holds further `setoption` lines."""
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write(f"setoption name Variant value {variant}\n{setup}"
                  f"position {start} moves {' '.join(moves)}\ngo {go}\n")
    p.stdin.flush()
    last = best = None
    for out in p.stdout:
        if out.startswith('info depth') and ' score ' in out and 'bound' not in out:
            last = out
        if out.startswith('bestmove'):
            best = out.split()[1]
            break
    p.stdin.write('quit\n')
    p.stdin.flush()
    p.wait()
    t = last.split()
    i = t.index('score')
    return best, t[i + 1], int(t[i + 2])


def games(records, name):
    for line in open(records):
        if not line.startswith('konakis-game'):
            continue
        f = dict((x.strip().split(' ', 1) + [''])[:2] for x in line.split('|'))
        if f['attackers'] == name and f['result'].startswith('defenders'):
            yield f


def main():
    records, name, engine, ms = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    part, nparts = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else (0, 1)
    for k, f in enumerate(games(records, name)):
        if k % nparts != part:
            continue
        variant = f['variant']
        mv = [m.split(':') for m in f['moves'].split()]
        first = next((i for i, m in enumerate(mv) if len(m) >= 3 and abs(int(m[2])) > 29000), len(mv))
        attackers_plies = [j for j in range(8, first) if j % 2 == 0]
        found = None
        for j in reversed(attackers_plies[-8:]):
            before = [m[0] for m in mv[:j]]
            best, kind, value = search(engine, variant, f['start'], before, f'movetime {ms}')
            if kind == 'mate' and value < 0:
                continue
            _, kind2, value2 = search(engine, variant, f['start'], before + [mv[j][0]], f'movetime {ms}')
            if kind2 == 'mate' and value2 > 0:
                found = (j, mv[j][0], best, f'{kind} {value}', f'mate {value2}')
            break
        if found:
            j, played, best, score, after = found
            print('|'.join([f['game'], f['start'], ' '.join(m[0] for m in mv[:j]), played, best, score, after]), flush=True)
        else:
            print(f"# game {f['game']}: no blunder found", flush=True)


if __name__ == '__main__':
    main()
