#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# scripts/doc-check.py [MODULE.ko] - the documents against the code, for
# "make lint" (scripts/lint.sh, issue 34).  Nothing here is typed twice: the
# numbers, errnos and names come from the sources (#defines, module_param
# and their initialisers), from modinfo of the built module, and from make.
#
#   constants   every "`NAME` (VALUE)" and "`NAME` (default VALUE" in docs/,
#               man/ and README.md, NAME a #define of uapi/ or driver/ or a
#               module parameter, states NAME's value (units: KiB MiB GiB);
#               "`sizeof(struct NAME)` (VALUE)" the size DWARF of the built
#               module gives, "`A` × `B` (VALUE)" the product of two such.
#   limits      abi.md's Limits table: every number of a bound is such a
#               pair; every errno "at the bound" is returned by a driver
#               function that uses the bound's constant or parameter; the
#               parameters it names are writable (0644), as it says.
#   errnos      every errno the errno tables and man pages name exists and
#               is returned by the code the page describes (the driver;
#               libbinderlite for its pages and header).
#   names       every FBINDER_* a page or header comment names is defined;
#               every bl_* function a page names is declared.
#   parameters  man/fastbinder.4 describes every parameter of the module
#               (and no other), with the default and writability of the
#               source; modinfo's descriptions state the same defaults.
#   versions    "ABI version N", abi.md's "(version N)" and the man pages'
#               "fastbinder X" footer match FBINDER_ABI_VERSION and
#               MODULE_VERSION.
#   make help   lists every phony target and every variable a user sets
#               (?= in the make files, or NAME= in a "make" command of the
#               docs).
#   C standard  every user-space compile line make would run has -std=c11
#               and -pedantic-errors, as the Makefile claims.
#   coverage    tests/unit/doc_coverage.sh (every public function documented).
#   layers      design.md's table of the driver's files gives each driver/*.c
#               file a layer; no file calls a function another file of a
#               higher layer defines, and every file is in the table once.
#
# Prints "doc-check: FILE:LINE: what" for each finding, then
# "doc-check: N findings"; exits 1 when N > 0.
import glob
import os
import re
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
os.chdir(TOP)
findings = {}           # in the order found, each once


def finding(where, what):
    findings[f'{where}: {what}'] = True


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


# ---- the code's facts --------------------------------------------------------

DRIVER_SRCS = sorted(glob.glob('driver/*.c') + glob.glob('driver/*.h') +
                     glob.glob('driver/*/*.c'))
UAPI = 'uapi/linux/fastbinder.h'
KERNEL_MACROS = {'SZ_4K': 4096, 'SZ_1M': 1 << 20, 'SZ_16M': 16 << 20, 'PAGE_SIZE': 4096,
                 'U32_MAX': 0xffffffff, 'SIZE_MAX': (1 << 64) - 1}


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def c_eval(expr, defines, depth=0):
    """The value of a C constant expression, or None."""
    if depth > 10:
        return None
    e = re.sub(r'\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b', r'\1', expr.strip())
    e = re.sub(r'\((unsigned )?(int|long|u32|u64|size_t|__u32|__u64)\)', '', e)

    def name(m):
        n = m.group(0)
        if n in KERNEL_MACROS:
            return str(KERNEL_MACROS[n])
        if n in defines:
            v = c_eval(defines[n], defines, depth + 1)
            if v is not None:
                return str(v)
        raise ValueError(n)
    try:
        e = re.sub(r'\b[A-Za-z_]\w*\b', name, e)
        if not re.fullmatch(r'[\d\sx()+\-*/<>|&~a-fA-F]*', e):
            return None
        return int(eval(e.replace('/', '//'), {}, {}))  # digits and operators only
    except (ValueError, SyntaxError, TypeError, ZeroDivisionError):
        return None


defines = {}            # NAME -> expression text
define_at = {}
for path in [UAPI] + DRIVER_SRCS:
    for i, line in enumerate(strip_comments(read(path)).split('\n'), 1):
        m = re.match(r'\s*#\s*define\s+([A-Z][A-Z0-9_]*)\s+(.+?)\s*$', line)
        if m and m.group(1) not in defines:
            defines[m.group(1)] = m.group(2)
            define_at[m.group(1)] = f'{path}:{i}'
values = {n: v for n in defines if (v := c_eval(defines[n], defines)) is not None}

# module parameters: name -> (variable, default, perm, file)
params = {}
for path in DRIVER_SRCS:
    text = strip_comments(read(path))
    for m in re.finditer(r'module_param_named\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)', text):
        name, var, typ, perm = m.groups()
        init = re.search(r'^[^\n(]*\b' + var + r'\s*=\s*([^;]+);', text, re.M)
        if typ == 'charp':
            default = init.group(1).strip().strip('"') if init else None
        else:
            default = c_eval(init.group(1), defines) if init else 0
        params[name] = (var, default, int(perm, 8), path)
if not params:
    finding('driver/', 'no module_param_named() found')

ABI = values.get('FBINDER_ABI_VERSION')
mv = re.search(r'MODULE_VERSION\("([^"]+)"\)', read('driver/main.c'))
MODULE_VERSION = mv.group(1) if mv else None


def returned_errnos(paths):
    out = set()
    for p in paths:
        out |= set(re.findall(r'-(E[A-Z0-9]+)\b', strip_comments(read(p))))
    return out


DRIVER_ERRNOS = returned_errnos(DRIVER_SRCS)
LIB_SRCS = sorted(glob.glob('libbinderlite/*.c') + glob.glob('libbinderlite/*.h'))
LIB_ERRNOS = returned_errnos(LIB_SRCS)
# errnos the kernel's own code gives on the driver's behalf: open(2) out of
# descriptors, mmap(2) and the signal restart the driver's -ERESTARTSYS becomes,
# and the open of a fastbinderfs device's number elsewhere (no cdev: ENXIO)
KERNEL_ERRNOS = {'EMFILE', 'ENFILE', 'EINTR', 'EAGAIN', 'ENOMEM', 'ENXIO'}
ERRNO_NAMES = set()
try:
    # errorcode names one errno per number: EOPNOTSUPP is ENOTSUP's on Linux
    ERRNO_NAMES = set(__import__('errno').errorcode.values()) | {'ERESTARTSYS', 'ENOTSUPP',
                                                                  'EOPNOTSUPP'}
except ImportError:
    pass


def functions_of(paths):
    """(file, name, body) of every function definition."""
    out = []
    for p in paths:
        lines = strip_comments(read(p)).split('\n')
        i = 0
        while i < len(lines):
            if lines[i] == '{':
                j = i - 1
                while j > 0 and not re.search(r'\b(\w+)\(', lines[j]):
                    j -= 1
                m = re.search(r'\b(\w+)\(', lines[j])
                k = i
                while k < len(lines) and lines[k] != '}':
                    k += 1
                out.append((p, m.group(1) if m else '?', '\n'.join(lines[j:k])))
                i = k
            i += 1
    return out


DRIVER_FUNCS = functions_of([p for p in DRIVER_SRCS if p.endswith('.c')])


def errnos_near(symbol):
    """Errnos returned by the functions that use symbol, and their callers'."""
    users = [(f, n, b) for f, n, b in DRIVER_FUNCS if re.search(r'\b' + symbol + r'\b', b)]
    names = {n for _, n, _ in users}
    out = set()
    for _, _, b in users:
        out |= set(re.findall(r'-(E[A-Z0-9]+)\b', b))
    # one level up: a helper that returns false and its caller says the errno
    for _, n, b in DRIVER_FUNCS:
        if any(re.search(r'\b' + u + r'\(', b) for u in names):
            out |= set(re.findall(r'-(E[A-Z0-9]+)\b', b))
    return out


# ---- the documents --------------------------------------------------------------

DOCS = sorted(glob.glob('docs/*.md')) + ['README.md', 'tests/README.md', 'examples/README.md']
MANS = sorted(glob.glob('man/*.[1-8]'))
UNITS = {'': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30, 'bytes': 1, 'pages': 1}


def doc_lines(path):
    text = read(path)
    if path.startswith('man/'):
        # roff: drop fonts and escapes, join ".B x" macros to plain words
        text = re.sub(r'\\f[BIRP]', '', text).replace('\\-', '-').replace('\\(aq', "'")
        text = re.sub(r'^\.(B|I|BR|BI|IR|RB|RI)\s+', '', text, flags=re.M)
    return text.split('\n')


def parse_number(num, unit):
    try:
        v = int(num, 0)
    except ValueError:
        return None
    return v * UNITS.get(unit or '', 1)


# "`sizeof(struct NAME)` (VALUE)": the size DWARF of the built module gives
SIZEOF = re.compile(r'`sizeof\(struct (\w+)\)` \((\d+)\)')
# "`A` × `B` (VALUE unit)": a product of two such names
PRODUCT = re.compile(r'`([\w() ]+)` × `([\w() ]+)` \((\d+)(?: (KiB|MiB|GiB))?\)')
struct_sizes = {}


def load_struct_sizes(ko):
    if not ko or not os.path.exists(ko):
        return
    try:
        out = subprocess.run(['readelf', '--debug-dump=info', ko], capture_output=True,
                             text=True).stdout
    except OSError:
        return
    for m in re.finditer(r'DW_TAG_structure_type\)\n\s*<[0-9a-f]+>\s+DW_AT_name\s*:.*?: (\w+)\n'
                         r'\s*<[0-9a-f]+>\s+DW_AT_byte_size\s*: (\d+)', out):
        struct_sizes.setdefault(m.group(1), int(m.group(2)))


def value_of(name):
    m = re.fullmatch(r'sizeof\(struct (\w+)\)', name)
    if m:
        return struct_sizes.get(m.group(1))
    if name in params and not isinstance(params[name][1], str):
        return params[name][1]
    return values.get(name)


def check_sizes(where, text):
    """The sizeof and product pairs of text; returns text without them."""
    for m in PRODUCT.finditer(text):
        a, b = value_of(m.group(1)), value_of(m.group(2))
        got = parse_number(m.group(3), m.group(4))
        if a is None or b is None:
            finding(where, f'{m.group(1)} × {m.group(2)}: no value for a name '
                           '(a module parameter, a #define, or a struct of the built module)')
        elif a * b != got:
            finding(where, f'{m.group(1)} × {m.group(2)} is {a * b}, the text says '
                           f'{m.group(3)}{" " + m.group(4) if m.group(4) else ""}')
    text = PRODUCT.sub(' ', text)
    for m in SIZEOF.finditer(text):
        want = struct_sizes.get(m.group(1))
        if want is None:
            finding(where, f'struct {m.group(1)}: not in the built module\'s DWARF '
                           '(build it, or name it as it is)')
        elif want != int(m.group(2)):
            finding(where, f'sizeof(struct {m.group(1)}) is {want} in the built module, '
                           f'the text says {m.group(2)}')
    return SIZEOF.sub(' ', text)


# "`NAME` (VALUE", "`NAME` (default VALUE", "NAME (default VALUE" (man),
# "VALUE (`NAME`)"
PAIR = re.compile(r'`?\b([A-Za-z_][A-Za-z0-9_]*)\b`?,? \((default )?(-?(?:0x[0-9a-f]+|[0-9]+))'
                  r'(?: (KiB|MiB|GiB|bytes|pages))?\b')


def check_value(where, name, num, unit, default):
    if name in params:
        want = params[name][1]
        if isinstance(want, str):
            return True
        got = parse_number(num, unit)
        if got != want:
            finding(where, f'{name}: the text says {num}{" " + unit if unit else ""}, '
                           f'the module parameter\'s default is {want} ({params[name][3]})')
        return True
    if name in values and not default:
        got = parse_number(num, unit)
        if got != values[name]:
            finding(where, f'{name}: the text says {num}{" " + unit if unit else ""}, '
                           f'{define_at[name]} defines {values[name]}')
        return True
    return False


def check_pairs(path):
    for i, line in enumerate(doc_lines(path), 1):
        line = check_sizes(f'{path}:{i}', line)
        for m in PAIR.finditer(line):
            name, default, num, unit = m.groups()
            if name.startswith(('FBINDER_', 'BL_')) or name in params:
                check_value(f'{path}:{i}', name, num, unit, default)
        # man pages: ".BI max_handles= n" then "(default 65536)" a line later
        if path.startswith('man/'):
            continue


def check_limits():
    path = 'docs/abi.md'
    lines = read(path).split('\n')
    try:
        start = lines.index('## Limits')
    except ValueError:
        finding(path, 'no "## Limits" section')
        return
    rows = 0
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.startswith('## '):
            break
        if not line.startswith('|') or line.startswith('|---') or line.startswith('| resource'):
            continue
        rows += 1
        where = f'{path}:{i + 1}'
        cells = [c.strip() for c in line.strip('|').split('|')]
        if len(cells) != 4:
            finding(where, f'a Limits row has {len(cells)} cells, not 4')
            continue
        bound, errors = cells[1], cells[3]
        named = []
        bound = check_sizes(where, bound)
        rest = bound
        for m in PAIR.finditer(bound):
            name, default, num, unit = m.groups()
            if check_value(where, name, num, unit, default):
                named.append(name)
                # the parenthesis it opened is that name's: its numbers too
                close = bound.find(')', m.end())
                rest = rest.replace(bound[m.start():close + 1 if close > 0 else m.end()], ' ')
        for name in re.findall(r'`([a-z_]+)`', bound):
            if name in params and name not in named:
                finding(where, f'`{name}` is named without its value: write `{name}` (default N)')
                named.append(name)
        rest = re.sub(r'\b\d+\^\d+( - 1)?', ' ', rest)          # 2^32 - 1: a type's range
        for num in re.findall(r'(?<![\w.-])\d[\d,.]*\b', rest):
            finding(where, f'the bound states {num} without the constant it comes from '
                           '(write `NAME` (VALUE))')
        for name in named:
            if name in params and params[name][2] != 0o644:
                finding(where, f'{name} is mode {params[name][2]:04o}: the Limits text says '
                               'its parameters are writable at run time')
            symbol = params[name][0] if name in params else name
            near = errnos_near(symbol)
            for e in re.findall(r'`(E[A-Z0-9]+)`', errors):
                if e not in near and e not in KERNEL_ERRNOS:
                    finding(where, f'{e} at the bound of {name}: no driver function that uses '
                                   f'{symbol} (or calls one that does) returns it')
    if rows < 10:
        finding(path, f'the Limits table has only {rows} rows: is it still a table?')


def check_errnos_and_names(path, lib):
    known = (LIB_ERRNOS | DRIVER_ERRNOS) if lib else DRIVER_ERRNOS
    if path.startswith('examples/'):
        known = known | EXAMPLE_ERRNOS
    text = '\n'.join(doc_lines(path))
    for i, line in enumerate(text.split('\n'), 1):
        for e in set(re.findall(r'(?<![\w-])(E[A-Z][A-Z0-9]+)\b', line)):
            if e in ('EOF', 'EXIT', 'ERRORS', 'EXAMPLE', 'EXAMPLES', 'ENVIRONMENT', 'EE', 'EX',
                     'ELF'):
                continue
            if ERRNO_NAMES and e not in ERRNO_NAMES:
                finding(f'{path}:{i}', f'{e} is not an errno')
            elif e not in known and e not in KERNEL_ERRNOS:
                finding(f'{path}:{i}', f'{e}: {"neither the driver nor libbinderlite" if lib else "the driver"} '
                                       'never returns it')
        for n in set(re.findall(r'\b(FBINDER_[A-Z0-9_]+)\b', line)):
            if n.endswith('_') or n.endswith('_*'):
                continue
            if n not in defines and not re.search(r'\b' + n + r'\b', CODE_TEXT):
                finding(f'{path}:{i}', f'{n} is neither defined nor used by any code, script or make file')
        for n in set(re.findall(r'\b(bl_[a-z0-9_]+)\(', line)):
            if not re.search(r'\b' + n + r'\(', BL_HDR if lib else BL_HDRS):
                finding(f'{path}:{i}', f'{n}() is not declared in '
                                       f'{"binderlite.h" if lib else "libbinderlite/"}')


def check_header_comments():
    # the comments of the public headers name only what exists
    for path in (UAPI, 'libbinderlite/include/binderlite.h'):
        text = read(path)
        for m in re.finditer(r'/\*.*?\*/', text, re.S):
            line = text.count('\n', 0, m.start()) + 1
            for n in set(re.findall(r'\b(FBINDER_[A-Z0-9_]+[A-Z0-9])\b', m.group(0))):
                if n not in defines and not re.search(r'\b' + n + r'\b', CODE_TEXT):
                    finding(f'{path}:{line}', f'the comment names {n}, which is not defined')
            for n in set(re.findall(r'\b(bl_[a-z0-9_]+)\(\)', m.group(0))):
                if not re.search(r'\b' + n + r'\(', BL_HDR):
                    finding(f'{path}:{line}', f'the comment names {n}(), which is not declared')


def check_parameters(ko):
    path = 'man/fastbinder.4'
    text = read(path)
    sec = text.split('.SH MODULE PARAMETERS', 1)
    if len(sec) < 2:
        finding(path, 'no MODULE PARAMETERS section')
        return
    body = sec[1].split('\n.SH', 1)[0]
    entries = re.split(r'\n\.BI ', '\n' + body)[1:]
    seen = set()
    for ent in entries:
        m = re.match(r'(\w+)=', ent)
        if not m:
            continue
        name = m.group(1)
        seen.add(name)
        line = text.count('\n', 0, text.find('.BI ' + name + '=')) + 1
        where = f'{path}:{line}'
        if name not in params:
            finding(where, f'{name} is not a parameter of the module')
            continue
        var, default, perm, src = params[name]
        plain = re.sub(r'\\f[BIRP]|\n\.(B|BR|I|IR)\s+', ' ', ent).replace('\\-', '-')
        d = re.search(r'\(default\s+(-?[0-9a-zA-Z_.]+)(?: (KiB|MiB|GiB))?', plain)
        if not d:
            finding(where, f'{name}: no "(default ...)"')
        elif isinstance(default, str):
            if d.group(1) != default:
                finding(where, f'{name}: default {d.group(1)}, the source says "{default}"')
        elif parse_number(d.group(1), d.group(2)) != default:
            finding(where, f'{name}: default {d.group(1)}, {src} says {default}')
        writable = 'Writable at run time' in plain
        readonly = 'Read-only once loaded' in plain
        if writable == readonly:
            finding(where, f'{name}: say "Writable at run time." or "Read-only once loaded."')
        elif writable != bool(perm & 0o200):
            finding(where, f'{name}: mode {perm:04o} in {src}, the page says '
                           f'{"writable" if writable else "read-only"}')
        if not re.search(r'(^|\n)\.TP\s*$', '\n' + body.split('.BI ' + name + '=')[0].rstrip()[-4:]):
            finding(where, f'{name}: its entry does not start with .TP')
    for name in sorted(set(params) - seen):
        finding(path, f'the module parameter {name} ({params[name][3]}) is not described')
    # README's table: | `name` | default | writable/read-only | meaning |
    seen = set()
    for i, line in enumerate(read('README.md').split('\n'), 1):
        m = re.match(r'\| `(\w+)` \| ([^|]+) \| (writable|read-only) \|', line)
        if not m:
            continue
        name, dflt, rw = m.groups()
        seen.add(name)
        where = f'README.md:{i}'
        if name not in params:
            finding(where, f'{name} is not a parameter of the module')
            continue
        var, default, perm, src = params[name]
        d = re.match(r'`?(-?[0-9a-zA-Z_]+)`?(?: (KiB|MiB|GiB))?', dflt.strip())
        if isinstance(default, str):
            ok = d and d.group(1) == default
        else:
            ok = d and parse_number(d.group(1), d.group(2)) == default
        if not ok:
            finding(where, f'{name}: default "{dflt.strip()}", {src} says {default}')
        if (rw == 'writable') != bool(perm & 0o200):
            finding(where, f'{name}: mode {perm:04o} in {src}, README says {rw}')
    for name in sorted(set(params) - seen):
        finding('README.md', f'the module parameter {name} is not in the parameter table')
    # modinfo of the built module: the same names, the same defaults
    if not ko or not os.path.exists(ko):
        return
    try:
        out = subprocess.run(['modinfo', '-F', 'parm', ko], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        finding(ko, f'modinfo failed: {e}')
        return
    built = {}
    for line in out.splitlines():
        n, _, desc = line.partition(':')
        built[n] = desc
    if set(built) != set(params):
        finding(ko, f'modinfo lists {sorted(built)}, the sources {sorted(params)}')
    for n, desc in built.items():
        d = re.search(r'\(default\s+"?(-?[0-9a-zA-Z_]+)"?(?: (KiB|MiB|GiB))?', desc)
        if n in params and d and not isinstance(params[n][1], str):
            if parse_number(d.group(1), d.group(2)) != params[n][1]:
                finding(ko, f'modinfo: {n} says default {d.group(1)}, '
                            f'{params[n][3]} sets {params[n][1]}')


def check_versions():
    for path in DOCS + MANS + [UAPI, 'libbinderlite/include/binderlite.h']:
        for i, line in enumerate(doc_lines(path), 1):
            for v in re.findall(r'\bABI version (\d+)\b', line):
                if int(v) != ABI and 'built for' not in line:
                    finding(f'{path}:{i}', f'"ABI version {v}": FBINDER_ABI_VERSION is {ABI}')
    m = re.search(r'^# fastbinder ABI \(version (\d+)\)', read('docs/abi.md'), re.M)
    if not m or int(m.group(1)) != ABI:
        finding('docs/abi.md:1', f'the title does not say "(version {ABI})"')
    blv = re.search(r'^BL_VERSION\s*:?=\s*(\S+)', read('libbinderlite/lib.mk'), re.M)
    for path in MANS:
        m = re.search(r'^\.TH .*"(fastbinder|libbinderlite) ([^"]+)"', read(path), re.M)
        want = MODULE_VERSION if not m or m.group(1) == 'fastbinder' else blv and blv.group(1)
        if not m or m.group(2) != want:
            finding(f'{path}:2', '.TH does not say "fastbinder MODULE_VERSION" (driver/main.c) '
                                 'or "libbinderlite BL_VERSION" (libbinderlite/lib.mk)')
        for v in re.findall(r'fastbinder (\d+\.\d+), ABI version (\d+)', read(path)):
            if v[0] != MODULE_VERSION or int(v[1]) != ABI:
                finding(path, f'"fastbinder {v[0]}, ABI version {v[1]}": the code says '
                              f'{MODULE_VERSION}, {ABI}')


def make_db():
    return subprocess.run(['make', '-pnq', 'SKIP_DEPS=1', 'help'], capture_output=True,
                          text=True).stdout


def check_make_help():
    db = make_db()
    phony = set()
    for m in re.finditer(r'^\.PHONY: (.*)$', db, re.M):
        phony |= set(m.group(1).split())
    out = subprocess.run(['make', '-s', '--no-print-directory', 'SKIP_DEPS=1', 'help'],
                         capture_output=True, text=True).stdout
    words = set(re.findall(r'[A-Za-z0-9_.-]+', out))
    for t in sorted(phony):
        if t not in words:
            finding('make help', f'the target {t} is missing')
    variables = set()
    for path in ['Makefile'] + glob.glob('*/*.mk') + glob.glob('tests/*/*.mk'):
        variables |= set(re.findall(r'^([A-Z][A-Z0-9_]*)\s*\?=', read(path), re.M))
    for path in DOCS + ['Makefile'] + glob.glob('*/*.mk'):
        for cmd in re.findall(r'\bmake [^`\n|;"]*', read(path)):
            variables |= set(re.findall(r'\b([A-Z][A-Z0-9_]*)=', cmd))
    variables -= KBUILD_VARIABLES
    for v in sorted(variables):
        if not re.search(r'\b' + v + r'=', out):
            finding('make help', f'the variable {v} is missing (as {v}=...)')


def check_c_standard():
    db = make_db()
    m = re.search(r'^USER_CFLAGS :?= (.*)$', db, re.M)
    flags = m.group(1).split() if m else []
    for f in ('-std=c11', '-pedantic-errors'):
        if f not in flags:
            finding('Makefile', f'USER_CFLAGS lacks {f}')
    if '-std=c11 -pedantic-errors' not in read('Makefile'):
        finding('Makefile', 'the comment above USER_CFLAGS does not name -std=c11 -pedantic-errors')
    # every compile line of the user space, the tests and the bench
    cc = re.search(r'^CC :?= (.*)$', db, re.M)
    cc = cc.group(1).strip() if cc else 'cc'
    dry = subprocess.run(['make', '-n', '-B', 'SKIP_DEPS=1', 'BUILD=build/doc-check',
                          'userspace', 'vg-progs', 'check-host', 'check-vm'],
                         capture_output=True, text=True).stdout
    lines = [ln for ln in dry.replace('\\\n', ' ').split('\n')
             if ln.startswith(cc + ' ') and re.search(r'\S+\.c\b', ln)]
    if not lines:
        finding('make -n', f'no "{cc} ..." compile line found')
    for ln in lines:
        if '-std=c11' not in ln.split() or '-pedantic-errors' not in ln.split():
            finding('make -n', f'compiled without -std=c11 -pedantic-errors: {ln[:160]}')
    return len(lines)


def check_coverage():
    r = subprocess.run(['tests/unit/doc_coverage.sh'], capture_output=True, text=True)
    if r.returncode:
        for ln in r.stdout.splitlines():
            finding('doc_coverage', ln)


def check_layers():
    """docs/design.md's layers of the driver's files, against their calls."""
    layer = {}
    for n, ln in enumerate(doc_lines('docs/design.md'), 1):
        m = re.match(r'\|\s*(\d+)\s*\|([^|]*)\|', ln)
        if not m:
            continue
        for f in re.findall(r'`([\w/]+\.c)`', m.group(2)):
            if f in layer:
                finding(f'docs/design.md:{n}', f'{f} is in the layers table twice')
            layer[f] = int(m.group(1))
    srcs = [p for p in glob.glob('driver/*.c')]
    for p in srcs:
        if os.path.basename(p) not in layer:
            finding('docs/design.md', f'{p} is not in the layers table')
    for f in layer:
        if not os.path.exists(f'driver/{f}'):
            finding('docs/design.md', f'the layers table names {f}, which driver/ does not have')
    # the file that defines each function other files may call
    owner = {}
    for p in srcs:
        lines = strip_comments(read(p)).split('\n')
        for i, ln in enumerate(lines):
            if ln != '{':
                continue
            j = i - 1
            while j > 0 and not re.search(r'\b(\w+)\(', lines[j]):
                j -= 1
            m = re.search(r'\b(fbinder_\w+)\(', lines[j])
            if not m:
                continue
            static = lines[j].startswith('static') or \
                (lines[j].startswith(m.group(1)) and lines[j - 1].startswith('static'))
            if not static:
                owner[m.group(1)] = os.path.basename(p)
    for p in srcs:
        f = os.path.basename(p)
        if f not in layer:
            continue
        seen = set()
        for n, ln in enumerate(strip_comments(read(p)).split('\n'), 1):
            for name in re.findall(r'\b(fbinder_\w+)\s*\(', ln):
                g = owner.get(name)
                if not g or g == f or g not in layer or layer[g] <= layer[f] or \
                   (name, g) in seen:
                    continue
                seen.add((name, g))
                finding(f'{p}:{n}', f'layer {layer[f]} calls {name}() of {g}, layer {layer[g]} '
                        '(docs/design.md: a file calls only its own layer and those below)')
    return len(layer)


CODE_TEXT = ''.join(read(p) for p in
                    [UAPI, 'Makefile'] + DRIVER_SRCS + LIB_SRCS + glob.glob('*/*.mk') +
                    glob.glob('scripts/*.sh') + glob.glob('scripts/vm/*') +
                    glob.glob('tests/*/*.[ch]') + glob.glob('tests/*/*.sh') + glob.glob('tests/*/*.mk'))
BL_HDR = read('libbinderlite/include/binderlite.h')
BL_HDRS = BL_HDR + read('libbinderlite/internal.h')
EXAMPLE_ERRNOS = returned_errnos(glob.glob('examples/*/*.[ch]'))
# kbuild's own, passed through KBUILD_ARGS
KBUILD_VARIABLES = {'C', 'CHECK', 'W', 'KCFLAGS', 'M'}
ko = sys.argv[1] if len(sys.argv) > 1 else None
load_struct_sizes(ko)

check_limits()
for p in DOCS + MANS:
    check_pairs(p)
    check_errnos_and_names(p, lib=('libbinderlite' in p or 'parcel' in p))
check_header_comments()
check_parameters(ko)
check_versions()
check_make_help()
ncc = check_c_standard()
check_coverage()
nlayered = check_layers()

for f in findings:
    print(f'doc-check: {f}')
print(f'doc-check: {len(values)} constants, {len(params)} module parameters, '
      f'{len(DOCS) + len(MANS)} pages, {ncc} compile lines, '
      f'{nlayered} layered files: {len(findings)} findings')
sys.exit(1 if findings else 0)
