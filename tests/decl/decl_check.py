#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a C file that checks our declarations of a vendor library
(src/lib/gpu/*_decl.h) against a reference we did not write, at compile
time: every struct's size, alignment, field offsets and field types, every
constant's value, every other typedef, and every function's return and
argument types.  Compiling the file (gcc or clang, -std=c11) is the check; a
difference fails one _Static_assert whose message names the type, field,
constant or function.

  decl_check.py OURS.h INCLUDE_NAME REF_DESCRIPTION OUT.c
      the reference is a C header (#include INCLUDE_NAME, e.g.
      <rocm_smi/rocm_smi.h>)
  decl_check.py --rust BINDINGS.rs OURS.h REF_DESCRIPTION OUT_DIR
      the reference is bindgen's translation of a C header: the items our
      header names (and what they use) are written back to C as
      OUT_DIR/ref.h, and the check as OUT_DIR/check.c

What our header declares is read from clang's AST of it (clang
-ast-dump=json), not from a list kept by hand, so a declaration added there
is checked without a change here.  Each of our names is renamed
(gt_ours_NAME) while our header is included, so the reference's
declarations of the same names can be included beside it."""
import json
import os
import re
import subprocess
import sys


def die(msg):
    sys.exit('decl_check: ' + msg)


# ---------------------------------------------------------------- our header

def clang_ast(text, include_dirs):
    cmd = ['clang', '-std=c11', '-D_GNU_SOURCE', '-x', 'c', '-fsyntax-only', '-Xclang', '-ast-dump=json']
    cmd += ['-I' + d for d in include_dirs] + ['-']
    out = subprocess.run(cmd, input=text, capture_output=True, text=True)
    if out.returncode != 0:
        die('clang cannot read the header:\n' + out.stderr)
    return json.loads(out.stdout).get('inner', [])


def newer_names(path):
    """Names our header declares as newer than the reference, in a comment
    "Not in the reference (newer): NAME, NAME." with the reason beside it."""
    names = []
    for m in re.finditer(r'Not in the reference \(newer\):\s*([\w,\s*]+?)\.', open(path).read()):
        names += [n for n in re.split(r'[\s,*]+', m.group(1)) if n]
    return set(names)


def read_ours(path):
    """Our header's declarations: typedefs, records, enum constants and
    functions, in order.  The nodes after those of its own #include lines are
    the header's (it includes system headers first, then declares)."""
    text = open(path).read()
    guard = None
    for m in re.finditer(r'^\s*#\s*define\s+(\w+)(.*)$', text, re.M):
        if m.group(1).endswith('_H') and not m.group(2).strip() and guard is None:
            guard = m.group(1)
            continue
        die('%s: macro %s: declare constants as enumerators, which the check can see' % (path, m.group(1)))
    includes = ''.join(l + '\n' for l in text.splitlines() if re.match(r'\s*#\s*include\s*<', l))
    base = clang_ast(includes, [])
    nodes = clang_ast(text, [os.path.dirname(path)])
    if [n.get('name') for n in nodes[:len(base)]] != [n.get('name') for n in base]:
        die('%s: its #include lines must come before its declarations' % path)
    nodes = nodes[len(base):]
    records = {}        # clang id -> (tag, fields or None when incomplete)
    decls = []          # ('typedef', name, qualType, record id or None) / ('enum', name) / ('func', name, qualType)
    for n in nodes:
        kind = n.get('kind')
        if kind == 'RecordDecl':
            fields = None
            if n.get('completeDefinition'):
                fields = [(f['name'], f['type']['qualType']) for f in n.get('inner', []) if f.get('kind') == 'FieldDecl']
                if any(not name or '(' in qual for name, qual in fields) or \
                        any(f.get('isBitfield') for f in n.get('inner', [])):
                    die('%s: struct %s has an unnamed, bit-field or function pointer field, which the check '
                        'cannot compare' % (path, n.get('name', '')))
            records[n['id']] = (n.get('name', ''), fields)
            if n.get('name'):
                decls.append(('tag', n['name'], n['id']))
        elif kind == 'TypedefDecl':
            rec = None
            for t in walk(n):
                if 'ownedTagDecl' in t:
                    rec = t['ownedTagDecl']['id']
                elif t.get('kind') == 'RecordType' and rec is None and not t['type']['qualType'].endswith('*'):
                    rec = t['decl']['id']
            qual = n['type']['qualType']
            if any(t.get('kind') in ('EnumType',) or t.get('ownedTagDecl', {}).get('kind') == 'EnumDecl'
                   for t in walk(n)):
                die('%s: typedef %s of an enum: declare it as the integer type the reference\'s enum has '
                    '(unsigned int for gcc and clang where no value is negative)' % (path, n['name']))
            if rec is not None and rec not in records:
                rec = None
            if rec is not None and (qual.endswith('*') or records[rec][1] is None):
                rec = None      # a pointer to a struct, or an incomplete one: checked as a type
            decls.append(('typedef', n['name'], qual, rec))
        elif kind == 'EnumDecl':
            for c in n.get('inner', []):
                if c.get('kind') == 'EnumConstantDecl':
                    decls.append(('enum', c['name']))
        elif kind == 'FunctionDecl':
            decls.append(('func', n['name'], n['type']['qualType']))
        else:
            die('%s: a declaration the check cannot read (%s %s)' % (path, kind, n.get('name', '')))
    return decls, records


def walk(node):
    yield node
    for c in node.get('inner', []):
        yield from walk(c)


def pointer_to(qual):
    """C spelling of a pointer to the type spelled qual (arrays need the
    declarator form: char[16] -> char (*)[16])."""
    m = re.match(r'^(.*?)\s*((?:\[\d+\])+)$', qual)
    if m:
        return '%s (*)%s' % (m.group(1), m.group(2))
    return qual + ' *'


def function_pointer(qual):
    """'R (P1, P2)' -> 'R (*)(P1, P2)'."""
    depth = 0
    for i in range(len(qual) - 1, -1, -1):
        depth += {')': 1, '(': -1}.get(qual[i], 0)
        if depth == 0:
            return '%s(*)%s' % (qual[:i] if qual[:i].endswith(' ') or qual[:i].endswith('*') else qual[:i] + ' ',
                                qual[i:])
    die('cannot read the function type ' + qual)


def write_check(ours_path, ours_include, decls, records, ref_include, ref_desc, out, newer=()):
    names = [d[1] for d in decls]
    lines = ['/* Written by tests/decl/decl_check.py: %s against %s. */' % (ours_include, ref_desc),
             '#include <stddef.h>']
    lines += ['#define %s gt_ours_%s' % (n, n) for n in names]
    lines += ['#include "%s"' % ours_include]
    lines += ['#undef %s' % n for n in names]
    lines += ['#include %s' % ref_include, '']
    vs = ' differs from ' + ref_desc.replace('"', "'")

    def check(cond, what):
        lines.append('_Static_assert(%s,\n               "%s");' % (cond, (what + vs).replace('"', "'")))
    for d in decls:
        if d[1] in newer:
            continue
        if d[0] == 'typedef':
            _, name, qual, rec = d
            if rec is None:
                check('_Generic((%s *)0, %s: 1, default: 0)' % (name, pointer_to(qual)),
                      '%s: the type (here: %s)' % (name, qual))
                continue
            ours = 'gt_ours_' + name
            check('sizeof(%s) == sizeof(%s)' % (ours, name), '%s: the size' % name)
            check('_Alignof(%s) == _Alignof(%s)' % (ours, name), '%s: the alignment' % name)
            for field, fqual in records[rec][1]:
                check('offsetof(%s, %s) == offsetof(%s, %s)' % (ours, field, name, field),
                      '%s.%s: the offset' % (name, field))
                check('_Generic((__typeof__(((%s *)0)->%s) *)0, %s: 1, default: 0)' % (name, field, pointer_to(fqual)),
                      '%s.%s: the type (here: %s)' % (name, field, fqual))
        elif d[0] == 'tag':
            _, tag, rid = d
            fields = records[rid][1]
            if fields is not None and not any(x[0] == 'typedef' and x[3] == rid for x in decls):
                die('%s: struct %s has no typedef; the check reads structs through their typedef' % (ours_path, tag))
        elif d[0] == 'enum':
            check('(long long)gt_ours_%s == (long long)%s' % (d[1], d[1]), '%s: the value' % d[1])
        elif d[0] == 'func':
            check('_Generic(&%s, %s: 1, default: 0)' % (d[1], function_pointer(d[2])),
                  '%s: the return or argument types (here: %s)' % (d[1], d[2]))
    open(out, 'w').write('\n'.join(lines) + '\n')


# ------------------------------------------------------------ bindgen output

RAW = {'c_char': 'char', 'c_schar': 'signed char', 'c_uchar': 'unsigned char', 'c_short': 'short',
       'c_ushort': 'unsigned short', 'c_int': 'int', 'c_uint': 'unsigned int', 'c_long': 'long',
       'c_ulong': 'unsigned long', 'c_longlong': 'long long', 'c_ulonglong': 'unsigned long long',
       'c_float': 'float', 'c_double': 'double', 'c_void': 'void',
       'u8': 'uint8_t', 'i8': 'int8_t', 'u16': 'uint16_t', 'i16': 'int16_t', 'u32': 'uint32_t',
       'i32': 'int32_t', 'u64': 'uint64_t', 'i64': 'int64_t', 'f32': 'float', 'f64': 'double', 'bool': '_Bool'}


def split_top(text, sep=','):
    parts, depth, cur = [], 0, ''
    for i, ch in enumerate(text):
        if ch in '([<{':
            depth += 1
        elif ch in ')]}' or (ch == '>' and text[i - 1:i] != '-'):
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


class Bindings:
    def __init__(self, path):
        text = open(path).read()
        text = re.sub(r'//[^\n]*', '', text)
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        self.path = path
        self.consts = {}    # C name -> (rust type, value)
        self.aliases = {}   # name -> rust type
        self.records = {}   # name -> ('struct'|'union', [(field, rust type)] or None when opaque)
        self.funcs = {}     # name -> ([(param, rust type)], rust return type or None)
        self.unusual = set()  # packed or over-aligned structs
        for m in re.finditer(r'pub const (\w+)\s*:\s*([^=]+?)\s*=\s*([^;]+);', text):
            self.consts[m.group(1)] = (m.group(2).strip(), m.group(3).strip())
        for m in re.finditer(r'pub type (\w+)\s*=\s*([^;]+);', text):
            self.aliases[m.group(1)] = ' '.join(m.group(2).split())
        for m in re.finditer(r'pub use self::(\w+) as (\w+);', text):
            self.aliases[m.group(2)] = m.group(1)
        for m in re.finditer(r'((?:#\[[^\]]*\]\s*)*)pub (struct|union) (\w+) \{(.*?)\n\}', text, re.S):
            attrs, kind, name, body = m.groups()
            if name == 'NvmlLib':
                self.read_functions(body)
                continue
            # Packed or over-aligned structs would need attributes in C.
            if re.search(r'repr\([^)]*(packed|align)', attrs):
                self.unusual.add(name)
            fields = []
            for f in split_top(body):
                fm = re.match(r'(?:pub )?(\w+)\s*:\s*(.+)$', f, re.S)
                if not fm:
                    die('%s: cannot read field %r of %s' % (path, f, name))
                fields.append((fm.group(1), ' '.join(fm.group(2).split())))
            opaque = fields == [('_unused', '[u8; 0]')]
            self.records[name] = (kind, None if opaque else fields)
        # An enum's constants are named <enum type>_<C name> by bindgen.
        for name in list(self.consts):
            ty = self.consts[name][0]
            if ty in self.aliases and name.startswith(ty + '_'):
                self.consts[name[len(ty) + 1:]] = self.consts.pop(name)

    def read_functions(self, body):
        for f in split_top(body):
            # Legacy functions carry #[cfg(feature = "legacy-functions")].
            f = re.sub(r'^(?:\s*#\[[^\]]*\])*', '', f)
            m = re.match(r'pub (\w+)\s*:\s*(?:::std::result::)?Result<\s*unsafe extern "C" fn\((.*)\)\s*'
                         r'(?:->\s*(.+?))?\s*,\s*::libloading::Error\s*,?\s*>$', ' '.join(f.split()))
            if not m:
                continue    # the library handle
            params = []
            for p in split_top(m.group(2)):
                pm = re.match(r'(\w+)\s*:\s*(.+)$', p)
                params.append((pm.group(1), pm.group(2).strip()))
            self.funcs[m.group(1)] = (params, m.group(3))

    def spell(self, name):
        if name in self.records:
            return '%s %s' % (self.records[name][0], name)
        return name

    def cdecl(self, ty, d='', const=False, deps=None):
        """The C declaration of d with the Rust type ty; named types used
        are added to deps."""
        ty = ty.strip()
        q = 'const ' if const else ''
        if ty.startswith('*mut '):
            return self.cdecl(ty[5:], '*' + q + d, False, deps)
        if ty.startswith('*const '):
            return self.cdecl(ty[7:], '*' + q + d, True, deps)
        m = re.match(r'^\[(.+);\s*(\d+)usize\]$', ty) or re.match(r'^\[(.+);\s*(\d+)\]$', ty)
        if m:
            inner = '(%s)' % d if d.startswith('*') else d
            return self.cdecl(m.group(1), '%s[%s]' % (inner, m.group(2)), const, deps)
        m = re.match(r'^::std::option::Option<\s*unsafe extern "C" fn\((.*)\)\s*(?:->\s*(.+))?>$', ty) or \
            re.match(r'^Option<\s*unsafe extern "C" fn\((.*)\)\s*(?:->\s*(.+))?>$', ty)
        if m:
            params = ', '.join(self.cdecl(p.split(':', 1)[1], '', False, deps) for p in split_top(m.group(1))) or 'void'
            return self.cdecl(m.group(2) or '()', '(*%s)(%s)' % (d, params), False, deps)
        base = re.sub(r'^(?:::std::os::raw::|::std::os::raw::|raw::|std::os::raw::|::core::ffi::)', '', ty)
        if base == '()':
            c = 'void'
        elif base in RAW:
            c = RAW[base]
        elif re.match(r'^\w+$', base):
            if base not in self.aliases and base not in self.records:
                die('%s: type %s is not declared there' % (self.path, base))
            if deps is not None:
                deps.append(base)
            c = self.spell(base)
        else:
            die('%s: cannot write the type %s in C' % (self.path, ty))
        return q + c + (' ' + d if d else '')

    def has(self, name):
        return name in self.consts or name in self.aliases or name in self.records or name in self.funcs

    def write_ref(self, decls, out, newer):
        """C declarations of the items decls name and of what they use."""
        done, lines = set(), []

        def emit(name, stack=()):
            if name in done:
                return
            if name in stack:
                die('%s: %s refers to itself' % (self.path, name))
            stack = stack + (name,)
            deps, text = [], None
            if name in self.records:
                kind, fields = self.records[name]
                if name in self.unusual:
                    die('%s: %s is packed or over-aligned, which the check cannot write in C' % (self.path, name))
                if fields is None:
                    text = '%s %s;' % (kind, name)
                else:
                    body = []
                    for f, ty in fields:
                        if 'Bindgen' in ty:
                            die('%s: %s.%s is a bit-field, which the check cannot write in C' % (self.path, name, f))
                        body.append('    %s;' % self.cdecl(ty, f, False, deps))
                    text = '%s %s {\n%s\n};' % (kind, name, '\n'.join(body))
            elif name in self.aliases:
                text = 'typedef %s;' % self.cdecl(self.aliases[name], name, False, deps)
            elif name in self.funcs:
                params, ret = self.funcs[name]
                ps = ', '.join(self.cdecl(ty, '', False, deps) for _, ty in params) or 'void'
                text = '%s;' % self.cdecl(ret or '()', '%s(%s)' % (name, ps), False, deps)
            elif name in self.consts:
                ty, value = self.consts[name]
                if not re.match(r'^-?\d+$', value):
                    die('%s: constant %s = %s is not an integer' % (self.path, name, value))
                text = '#define %s ((%s)%s)' % (name, self.cdecl(ty, '', False, deps), value)
            else:
                die('%s: declared in our header but not in %s (NVML API 11): add it to the reference or '
                    'take it out of our declarations' % (name, self.path))
            # A struct reached through a pointer only needs its tag.
            for dep in deps:
                emit(dep, stack)
            done.add(name)
            lines.append(text)
        for d in decls:
            if d[1] not in newer:
                emit(d[1])
        with open(out, 'w') as f:
            f.write('/* Written by tests/decl/decl_check.py from %s: the items gpu-tracker declares, as\n'
                    ' * bindgen read them from NVIDIA\'s nvml.h. */\n' % self.path)
            f.write('#include <stdint.h>\n\n' + '\n'.join(lines) + '\n')
        # Fields the reference has and ours lacks do not always change the
        # size (a field in padding): compare the lists here.
        return {n: [f for f, _ in fields] for n, (_, fields) in self.records.items() if fields is not None}


def main(argv):
    if argv[:1] == ['--rust']:
        if len(argv) != 5:
            die('usage: --rust BINDINGS.rs OURS.h REF_DESCRIPTION OUT_DIR')
        _, bindings, ours, desc, out_dir = argv
        decls, records = read_ours(ours)
        newer = newer_names(ours)
        b = Bindings(bindings)
        for name in sorted(newer):
            if name not in [d[1] for d in decls]:
                die('%s: %s is said to be newer than the reference but is not declared' % (ours, name))
            if b.has(name):
                die('%s: %s is said to be newer than the reference, but %s has it now: check it' % (ours, name, desc))
        ref_fields = b.write_ref(decls, os.path.join(out_dir, 'ref.h'), newer)
        for d in decls:
            if d[0] == 'typedef' and d[3] is not None and d[1] not in newer:
                target = b.aliases.get(d[1])
                while target in b.aliases:
                    target = b.aliases[target]
                ours_f = [f for f, _ in records[d[3]][1]]
                if target in ref_fields and ours_f != ref_fields[target]:
                    die('%s: fields %s here, %s in %s' % (d[1], ', '.join(ours_f), ', '.join(ref_fields[target]), desc))
        include = os.path.relpath(ours, os.path.join(os.path.dirname(ours), '..'))
        write_check(ours, include, decls, records, '"ref.h"', desc, os.path.join(out_dir, 'check.c'), newer)
    else:
        if len(argv) != 4:
            die('usage: OURS.h INCLUDE_NAME REF_DESCRIPTION OUT.c')
        ours, ref_include, desc, out = argv
        decls, records = read_ours(ours)
        include = os.path.relpath(ours, os.path.join(os.path.dirname(ours), '..'))
        write_check(ours, include, decls, records, ref_include, desc, out, newer_names(ours))


if __name__ == '__main__':
    main(sys.argv[1:])
