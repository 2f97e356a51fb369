#!/usr/bin/python3
"""PostgreSQL oracle for rivulet's .slt files (a development tool; CI does not use it).

Runs each file on a fresh database `slt_oracle` of a local PostgreSQL (psycopg2, connecting
as the current OS user) and checks, or with --write rewrites, the expected blocks of query
and delta records, so expected results come from PostgreSQL rather than from memory:

    python3 sqllogictest/pg-oracle.py [--write] sqllogictest/test/basic/*.slt

* CREATE/DROP MATERIALIZED VIEW run as plain views (always current in PostgreSQL).
* `query ... delta v` is the multiset difference of `SELECT * FROM v` since the last check.
* A comment `# pg: <sql>` inside a record replaces its SQL for PostgreSQL (for statements
  PostgreSQL lacks, such as FLUSH or a FULL JOIN on a non-equality condition).
* `skipif postgresql` / `onlyif <other>` records are not run.
* Statement error SQLSTATEs written as `(XXXXX)` are checked.
"""
import sys, re, psycopg2, psycopg2.extensions as ext

# scalars, arrays and jsonb (kept in their text form: '{1,2}', '{"a": 1}', as the engine prints them)
RAW_OIDS = (16, 17, 18, 19, 20, 21, 23, 25, 26, 700, 701, 705, 1042, 1043, 1082, 1083, 1114, 1184, 1186, 1700, 2249, 2950,
            1000, 1001, 1002, 1003, 1005, 1007, 1009, 1014, 1015, 1016, 1021, 1022, 1028, 1115, 1182, 1183, 1185, 1187, 1231, 2951, 3802, 3807)
RAW = ext.new_type(RAW_OIDS, 'RAW', lambda s, cur: s)
ext.register_type(RAW)
NUMERIC = 1700
INT_OIDS = {20, 21, 23}
FLOAT_OIDS = {700, 701}

def fresh():
    admin = psycopg2.connect(dbname='postgres')
    admin.autocommit = True
    c = admin.cursor()
    c.execute('DROP DATABASE IF EXISTS slt_oracle')
    c.execute('CREATE DATABASE slt_oracle')
    admin.close()
    conn = psycopg2.connect(dbname='slt_oracle')
    conn.autocommit = True
    return conn

def pgsql(sql):
    sql = re.sub(r'\bMATERIALIZED\s+VIEW\b', 'VIEW', sql, flags=re.I)
    return sql

def render(v, oid):
    if v is None:
        return 'NULL'
    if v == '':
        return '(empty)'
    return v

def letter_ok(letter, oid):
    if letter == 'I': return oid in INT_OIDS or oid == NUMERIC
    if letter == 'R': return oid in FLOAT_OIDS or oid == NUMERIC or oid in INT_OIDS
    if letter == 'B': return oid == 16
    return True

def run_query(cur, sql):
    cur.execute(pgsql(sql))
    oids = [d.type_code for d in cur.description]
    rows = [[render(v, o) for v, o in zip(r, oids)] for r in cur.fetchall()]
    return oids, rows

def main():
    write = '--write' in sys.argv
    files = [a for a in sys.argv[1:] if not a.startswith('--')]
    bad = 0
    for f in files:
        text = open(f).read()
        lines = text.split('\n')
        conn = fresh()
        cur = conn.cursor()
        snapshots = {}
        out = []
        i = 0
        n = len(lines)
        while i < n:
            if lines[i].strip() == '':
                out.append(lines[i]); i += 1; continue
            rec = []
            while i < n and lines[i].strip() != '':
                rec.append(lines[i]); i += 1
            # header
            body = [l for l in rec if not l.lstrip().startswith('#')]
            skip = False
            k = 0
            while k < len(body) and body[k].split()[0] in ('skipif', 'onlyif'):
                w = body[k].split('#')[0].split()
                if w[0] == 'skipif' and w[1].lower() == 'postgresql': skip = True
                if w[0] == 'onlyif' and w[1].lower() != 'postgresql': skip = True
                k += 1
            if k >= len(body):
                out.extend(rec); continue
            head = body[k]
            where = f'{f}:{i - len(rec) + 1 + rec.index(head)}'
            rest = body[k + 1:]
            if skip or not (head.startswith('statement') or head.startswith('query')):
                out.extend(rec); continue
            if '----' in rest:
                d = rest.index('----')
                sql = '\n'.join(rest[:d]); expected = rest[d + 1:]
            else:
                sql = '\n'.join(rest); expected = None
            hw = head.split()
            alt = [l.lstrip()[len('# pg:'):].strip() for l in rec if l.lstrip().startswith('# pg:')]
            if alt:
                sql = alt[0]
            if hw[0] == 'statement':
                err = None
                try:
                    cur.execute(pgsql(sql))
                    count = cur.rowcount
                except psycopg2.Error as e:
                    err = e
                if hw[1] == 'ok' and err:
                    print(f'{where}: statement failed: {err.pgcode} {err.pgerror.strip()}'); bad += 1
                elif hw[1] == 'count' and (err or count != int(hw[2])):
                    print(f'{where}: statement count: expected {hw[2]}, got {err or count}'); bad += 1
                elif hw[1] == 'error':
                    if not err:
                        print(f'{where}: statement succeeded, expected error'); bad += 1
                    else:
                        m = re.match(r'\((\w{5})\)', ' '.join(hw[2:]))
                        if m and m.group(1) != err.pgcode:
                            print(f'{where}: expected {m.group(1)}, got {err.pgcode} {err.pgerror.strip()}'); bad += 1
                        elif not m:
                            print(f'{where}: note: error {err.pgcode} {err.pgerror.strip().splitlines()[0]}')
                out.extend(rec); continue
            # query
            if hw[1] == 'error':
                try:
                    run_query(cur, sql)
                    print(f'{where}: query succeeded, expected error'); bad += 1
                except psycopg2.Error as e:
                    m = re.match(r'\((\w{5})\)', ' '.join(hw[2:]))
                    if m and m.group(1) != e.pgcode:
                        print(f'{where}: expected {m.group(1)}, got {e.pgcode} {e.pgerror.strip()}'); bad += 1
                    elif not m:
                        print(f'{where}: note: error {e.pgcode} {e.pgerror.strip().splitlines()[0]}')
                out.extend(rec); continue
            types = hw[1]
            opts = hw[2:]
            if 'delta' in opts:
                view = opts[opts.index('delta') + 1].lower()
                oids, rows = run_query(cur, f'SELECT * FROM {view}')
                now = {}
                for r in rows:
                    key = tuple(r); now[key] = now.get(key, 0) + 1
                before = snapshots.get(view, {})
                got = []
                for key in set(now) | set(before):
                    w = now.get(key, 0) - before.get(key, 0)
                    if w != 0: got.append(' '.join(list(key) + [str(w)]))
                got.sort()
                snapshots[view] = now
                sortmode = 'rowsort'
            else:
                try:
                    oids, rows = run_query(cur, sql)
                except psycopg2.Error as e:
                    print(f'{where}: query failed: {e.pgcode} {e.pgerror.strip()}'); bad += 1
                    out.extend(rec); continue
                if len(types) != len(oids):
                    print(f'{where}: {len(types)} type letters, {len(oids)} columns'); bad += 1
                for letter, oid in zip(types, oids):
                    if not letter_ok(letter, oid):
                        print(f'{where}: note: letter {letter} for column type oid {oid}')
                got = [' '.join(r) for r in rows]
                sortmode = 'rowsort' if 'rowsort' in opts else 'valuesort' if 'valuesort' in opts else 'nosort'
                if sortmode == 'rowsort': got.sort()
                if sortmode == 'valuesort':
                    got = sorted(v for r in rows for v in r)
            exp = [re.sub(r'\s+', ' ', l).strip() for l in (expected or [])]
            cmp_exp = sorted(exp) if sortmode == 'rowsort' else exp
            got_n = [re.sub(r'\s+', ' ', l).strip() for l in got]
            if sortmode == 'rowsort': got_n.sort()
            if sortmode == 'valuesort': got_n = sorted(t for l in got_n for t in l.split(' '))
            if cmp_exp != got_n:
                if not write:
                    print(f'{where}: mismatch\n  expected: {exp}\n  postgres: {got}'); bad += 1
                # rewrite
                hdr_end = rec.index('----') if '----' in rec else len(rec)
                out.extend(rec[:hdr_end])
                if got or '----' in rec:
                    out.append('----')
                    out.extend(got)
                continue
            out.extend(rec)
        conn.close()
        if write:
            new = '\n'.join(out)
            if new != text:
                open(f, 'w').write(new)
                print(f'{f}: rewritten')
    print('problems:', bad)
    sys.exit(1 if bad else 0)

main()
