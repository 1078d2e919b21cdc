#!/usr/bin/env python3
"""Checks that docs/reference/*.md has an entry for every public name.

The public API is read from Clang's AST (clang++-14 -Xclang -ast-dump,
filtered to namespace travpool), not from a header parser:

  public name = a class, struct, enum, member function, constructor,
                destructor, free function, function template, alias,
                variable, data member or concept
                - declared in include/travpool/*.hpp or
                  include/travpool/mesh/*.hpp (not in a detail/ folder),
                - in no namespace named `detail` or `*_detail`,
                - with public access in every enclosing class,
                - not implicit (compiler-declared), not an instantiation,
                - not named `_`-something (private by convention).
  Overloads share one name; inline (ABI) namespaces are left out of it:
  travpool::basic_pool::create, travpool::mesh::triangle_mesh::split.

An entry is the marker

  <!-- ref: travpool::basic_pool::create -->

anywhere in docs/reference/*.md (one name per marker; an entry may carry
several markers). The check fails (exit 1) and prints every public name
without a marker, with its header and line; names with a marker but no
declaration are printed as stale (also a failure, so that renames are
caught). A name whose entry's cpp block lacks one of its current
declarations (a changed signature) is printed as a warning, not a failure.
--skeleton prints a Markdown entry for each missing name (its signature and
the header's comment), to paste into the right page.

Usage: scripts/check_reference.py [--clang clang++-14] [--skeleton] [--list]
Exit: 0 complete, 1 missing or stale entries, 77 clang not found (skipped).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Headers parsed: these first, then every other include/travpool/*.hpp and
# include/travpool/mesh/*.hpp. cgal.hpp needs CGAL and Boost; it is parsed
# when CGAL is installed (its public names are the BGL free functions and
# property maps).
HEADERS = [
    "travpool/pool.hpp",
    "travpool/hive.hpp",
    "travpool/column_pool.hpp",
    "travpool/allocator.hpp",
    "travpool/mesh.hpp",
]
OPTIONAL_HEADERS = {"travpool/mesh/cgal.hpp": "CGAL/Surface_mesh.h"}

MARKER = re.compile(r"<!--\s*ref:\s*(\S.*?)\s*-->")

DECL_KINDS = {
    "CXXRecordDecl", "ClassTemplateDecl", "EnumDecl", "CXXMethodDecl", "CXXConstructorDecl",
    "CXXDestructorDecl", "CXXConversionDecl", "FunctionDecl", "FunctionTemplateDecl",
    "TypeAliasDecl", "TypedefDecl", "TypeAliasTemplateDecl", "VarDecl", "FieldDecl", "ConceptDecl",
    "VarTemplateDecl",
}
FUNCTION_KINDS = {"CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl", "CXXConversionDecl", "FunctionDecl"}
SKIP_SUBTREE = {
    "ClassTemplateSpecializationDecl", "ClassTemplatePartialSpecializationDecl", "CompoundStmt",
    "CXXDeductionGuideDecl", "LinkageSpecDecl", "StaticAssertDecl", "UsingDecl", "UsingShadowDecl",
    "ConstructorUsingShadowDecl", "NonTypeTemplateParmDecl", "TemplateTypeParmDecl",
    "TemplateTemplateParmDecl", "ParmVarDecl",
}
FLAGS = {"implicit", "used", "referenced", "invalid", "hidden", "class", "struct", "union", "typename", "constexpr",
         "consteval", "explicit"}

LOC = re.compile(r"(?<![\w/.])line:(\d+):(\d+)|(?<![\w/.])col:(\d+)|([^\s<>,']+):(\d+):(\d+)")
HEAD = re.compile(r"^(\w+) 0x[0-9a-f]+((?: (?:parent|prev) 0x[0-9a-f]+)*) ?")


def public_file(path):
    p = os.path.normpath(path).replace(os.sep, "/")
    i = p.rfind("include/travpool/")
    if i < 0:
        return None
    rel = p[i + len("include/"):]
    if "/detail/" in rel:
        return None
    return rel


def skip_balanced(s, i):
    """s[i] == '<': returns the index after the matching '>'."""
    depth = 0
    while i < len(s):
        if s[i] == "<":
            depth += 1
        elif s[i] == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


class Loc:
    def __init__(self):
        self.file, self.line = None, 0

    def update(self, text):
        """Returns the locations in text as (file, line, col), updating state."""
        out = []
        for m in LOC.finditer(text):
            if m.group(1):
                self.line = int(m.group(1))
                out.append((self.file, self.line, int(m.group(2))))
            elif m.group(3):
                out.append((self.file, self.line, int(m.group(3))))
            else:
                self.file, self.line = m.group(4), int(m.group(5))
                out.append((self.file, self.line, int(m.group(6))))
        return out


def parse_line(line, loc):
    """Returns (depth, kind, range_locs, name_loc, rest) or None."""
    i = 0
    while i < len(line) and line[i] in "| `-":
        i += 1
    body = line[i:]
    depth = i // 2
    m = HEAD.match(body)
    if not m:
        loc.update(body.split("'", 1)[0])
        return depth, None, [], None, body
    kind = m.group(1)
    j = m.end()
    rng = []
    if j < len(body) and body[j] == "<":
        k = skip_balanced(body, j)
        rng = loc.update(body[j:k])
        j = k
    rest = body[j:].lstrip()
    name_loc = None
    if rest.startswith("<invalid sloc>"):
        rest = rest[len("<invalid sloc>"):].lstrip()
    else:
        tok = rest.split(" ", 1)
        ls = loc.update(tok[0])
        if ls:
            name_loc = ls[0]
            rest = tok[1] if len(tok) > 1 else ""
            if rest.startswith("<Spelling="):
                k = skip_balanced(rest, 0)
                loc.update(rest[:k])
                rest = rest[k:].lstrip()
    # locations inside the rest of the line (a CXXRecordDecl's "prev", a
    # lambda's "(lambda at f:1:2)" in a type) are not dumped locations
    return depth, kind, rng, name_loc, rest


def decl_name(kind, rest):
    pre = rest.split("'", 1)[0].split()
    words = [w for w in pre if w not in FLAGS]
    if not words:
        return None, False
    name = words[0]
    if kind == "CXXConversionDecl" and len(words) > 1:
        name = "operator " + words[1]  # operator bool, operator column<const T, Handle>
    if not name.startswith("operator"):
        name = name.split("<", 1)[0]  # a constructor of a template: basic_pool<T, Options...>
    elif name.startswith("operator "):
        name = name.split("<", 1)[0]
    return name, "implicit" in pre


class Source:
    def __init__(self):
        self.cache = {}

    def lines(self, path):
        if path not in self.cache:
            try:
                with open(path, encoding="utf-8") as f:
                    self.cache[path] = f.read().split("\n")
            except OSError:
                self.cache[path] = []
        return self.cache[path]

    def text(self, begin, end=None):
        """Source from begin (file, line, col) to the end of the token at end."""
        f, l0, c0 = begin
        ls = self.lines(os.path.join(ROOT, f) if not os.path.isabs(f) else f)
        if not ls:
            return ""
        if end is None:
            return ls[l0 - 1][c0 - 1:]
        if end[0] != f or end[1] > len(ls) or l0 > len(ls) or end[1] < l0:
            return ls[l0 - 1][c0 - 1:] if l0 <= len(ls) else ""
        _, l1, c1 = end
        c1 -= 1
        last = ls[l1 - 1]
        if c1 < len(last) and (last[c1].isalnum() or last[c1] == "_"):
            while c1 < len(last) and (last[c1].isalnum() or last[c1] == "_"):
                c1 += 1
        else:
            c1 += 1
        if l0 == l1:
            return last[c0 - 1:c1]
        return "\n".join([ls[l0 - 1][c0 - 1:]] + ls[l0:l1 - 1] + [last[:c1]])

    def comment_above(self, f, line):
        """The // comment block directly above a declaration (its contract)."""
        ls = self.lines(os.path.join(ROOT, f) if not os.path.isabs(f) else f)
        out = []
        i = line - 2
        while i >= 0 and ls[i].strip().startswith("//"):
            s = ls[i].strip()[2:]
            out.append(s[1:] if s.startswith(" ") else s)
            i -= 1
        return "\n".join(reversed(out)).strip()


def cut_signature(text):
    """Cuts a declaration's text before its body, initializers or a class's '{'."""
    depth, i, n = 0, 0, len(text)
    closed_params = False
    while i < n:
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                closed_params = True
        elif depth == 0:
            if c == "{" or c == ";":
                return text[:i].rstrip()
            if c == ":" and closed_params and text[i:i + 2] != "::" and text[i - 1] != ":":
                return text[:i].rstrip()
        i += 1
    return text.rstrip()


def squash(sig):
    sig = sig.replace("TRAVPOOL_ALWAYS_INLINE ", "")
    lines = [l.rstrip() for l in sig.split("\n")]
    if len(lines) > 1:
        ind = min((len(l) - len(l.lstrip()) for l in lines[1:] if l.strip()), default=0)
        lines = [lines[0]] + [l[ind:] if len(l) >= ind else l for l in lines[1:]]
        cont = 0 if lines[0].lstrip().startswith("template") else 4
        lines = [lines[0]] + [" " * cont + l for l in lines[1:]]
    return "\n".join(lines).strip()


class Scope:
    def __init__(self, depth, name, kind, access, public):
        self.depth, self.name, self.kind, self.access, self.public = depth, name, kind, access, public
        self.begin, self.qual = None, None  # template scopes: where the template begins, its name


def enumerate_api(dump_lines):
    """Returns OrderedDict name -> list of (header, line, signature, comment, kind)."""
    api = OrderedDict()
    src = Source()
    loc = Loc()
    stack = []  # Scope
    skip_below = None
    func_pending = None  # (depth, name, file, line, begin, done) of a function whose body may follow

    def add(name, f, line, sig, comment, kind=None):
        if not name.startswith("travpool::"):
            return  # a specialisation in namespace std, boost or CGAL: documented by hand
        lst = api.setdefault(name, [])
        if all(d[2] != sig for d in lst):
            lst.append((f, line, sig, comment, kind))

    for raw in dump_lines:
        if raw.startswith("Dumping "):
            loc = Loc()
            stack, skip_below, func_pending = [], None, None
            continue
        if not raw.strip():
            continue
        depth, kind, rng, name_loc, rest = parse_line(raw.rstrip("\n"), loc)
        if skip_below is not None:
            if depth > skip_below:
                if func_pending and kind == "CompoundStmt" and depth == func_pending[0] + 1 and rng:
                    fp = func_pending
                    func_pending = None
                    body, begin = rng[0], fp[4]
                    ok = body[0] == begin[0] and (body[1], body[2]) > (begin[1], begin[2])
                    fp[5](cut_signature(src.text(begin, (body[0], body[1], max(body[2] - 1, 1)))) if ok else None)
                continue
            skip_below = None
        if kind is None:
            continue
        while stack and stack[-1].depth >= depth:
            stack.pop()
        if func_pending and depth <= func_pending[0]:
            func_pending[5](None)
            func_pending = None
        scope = stack[-1] if stack else None
        if kind in SKIP_SUBTREE:
            skip_below = depth
            continue
        if kind == "NamespaceDecl":
            name, _ = decl_name(kind, rest)
            inline = rest.split("'", 1)[0].split()[-1:] == ["inline"]
            ok = scope is None or scope.public
            if name and (name == "detail" or name.endswith("_detail")):
                ok = False
            stack.append(Scope(depth, None if inline else name, kind, "public", ok))
            continue
        if kind == "AccessSpecDecl":
            if scope is not None and scope.kind == "record":
                scope.access = rest.split()[0] if rest else scope.access
            continue
        if kind == "FriendDecl":
            # a hidden friend: documented under its class, as a member
            stack.append(Scope(depth, None, "friend", "public", scope is not None and scope.public and
                               scope.kind == "record" and scope.access == "public"))
            continue
        out_of_line = " parent 0x" in raw.split("<", 1)[0] and not (scope is not None and scope.kind == "friend")
        if kind not in DECL_KINDS or out_of_line:
            skip_below = depth  # not an API declaration, or a member defined out of its class
            continue
        name, implicit = decl_name(kind, rest)
        tmpl = None
        if scope is not None and scope.kind == "template":
            # the pattern of a template decl: the first child decl; later ones
            # are instantiations
            if scope.access == "done":
                skip_below = depth
                continue
            scope.access = "done"
            tmpl = scope
            name = tmpl.name
        visible = scope is None or (scope.public and (scope.kind not in ("record",) or scope.access == "public"))
        if tmpl is not None:
            visible = tmpl.public
        f = name_loc[0] if name_loc else None
        rel = public_file(f) if f else None
        if implicit or name is None or rel is None or name.startswith("_"):
            visible = False
        if kind == "CXXRecordDecl" and scope is not None and scope.kind == "record" and name == scope.name:
            skip_below = depth  # injected class name
            continue
        parents = [s.name for s in stack if s.name and s.kind in ("namespace", "NamespaceDecl", "record")]
        qual = "::".join(parents + [name]) if name else None
        if kind.endswith("TemplateDecl") and kind != "FunctionTemplateDecl" or kind == "FunctionTemplateDecl":
            begin = rng[0] if rng else None
            stack.append(Scope(depth, name, "template", "pending", visible))
            stack[-1].begin = begin
            stack[-1].qual = qual
            continue
        begin = tmpl.begin if tmpl is not None and tmpl.begin else (rng[0] if rng else None)
        if begin and name_loc and begin[0] != name_loc[0]:
            begin = (name_loc[0], name_loc[1], 1)  # begins in a macro (TRAVPOOL_ALWAYS_INLINE): its line
        if tmpl is not None:
            qual = tmpl.qual
        if kind == "CXXRecordDecl":
            is_def = " definition" in rest or rest.rstrip().endswith("definition")
            rec_kind = rest.split("'", 1)[0].split()
            access = "private" if "class" in rec_kind else "public"
            stack.append(Scope(depth, name, "record", access, visible))
            if visible and begin and rel and is_def:
                sig = squash(cut_signature(src.text(begin, rng[-1]) + "{"))
                add(qual, rel, name_loc[1], sig, src.comment_above(begin[0], begin[1]))
            elif visible and begin and rel and qual not in api:  # declared, defined later (or never)
                add(qual, rel, name_loc[1], squash(src.text(begin, rng[-1])), src.comment_above(begin[0], begin[1]),
                    "forward")
            if not visible:
                skip_below = depth
            continue
        if kind == "EnumDecl":
            if visible and begin and rel:
                add(qual, rel, name_loc[1], squash(cut_signature(src.text(begin, rng[-1]))), src.comment_above(begin[0], begin[1]))
            skip_below = depth
            continue
        if not visible or not begin or not rng:
            skip_below = depth
            continue
        comment = src.comment_above(begin[0], begin[1])
        if kind in FUNCTION_KINDS:
            def done(sig, qual=qual, rel=rel, line=name_loc[1], begin=begin, end=rng[-1], comment=comment):
                if sig is None:
                    sig = cut_signature(src.text(begin, end))
                add(qual, rel, line, squash(sig.rstrip().rstrip(";")) + ";", comment)
            func_pending = (depth, qual, rel, name_loc[1], begin, done)
            skip_below = depth
            continue
        text = src.text(begin, rng[-1])
        if kind in ("VarDecl", "FieldDecl"):
            text = text.split("\n")[0] if "=" not in text else text
        sig = squash(text.rstrip(";")) + ";"
        if "\n" not in sig:  # a trailing comment on the declaration's line is its contract
            rest_of_line = src.text((begin[0], rng[-1][1], 1)).split(";", 1)
            if len(rest_of_line) == 2 and rest_of_line[1].strip().startswith("//"):
                sig += "  " + rest_of_line[1].strip()
        add(qual, rel, name_loc[1], sig, comment, kind)
        skip_below = depth
    if func_pending:
        func_pending[5](None)
    for name, lst in api.items():  # a class declared before its definition: the definition
        if len(lst) > 1 and any(d[4] == "forward" for d in lst):
            lst[:] = [d for d in lst if d[4] != "forward"]
    return api


def find_clang(explicit):
    for c in ([explicit] if explicit else []) + ["clang++-14", "clang++"]:
        p = shutil.which(c) if c else None
        if p:
            return p
    return None


def public_headers():
    """Every public header: include/travpool/*.hpp and include/travpool/mesh/*.hpp
    (a header added later is checked without editing this script); an
    optional one only where its dependency is installed."""
    inc = os.path.join(ROOT, "include")
    found = []
    for sub in ("travpool", "travpool/mesh"):
        d = os.path.join(inc, sub)
        found += sorted("%s/%s" % (sub, f) for f in os.listdir(d) if f.endswith(".hpp"))
    headers = list(HEADERS) + [h for h in found if h not in HEADERS and h not in OPTIONAL_HEADERS]
    for h, need in OPTIONAL_HEADERS.items():
        if h in found and any(os.path.exists(os.path.join(d, need)) for d in ("/usr/include", "/usr/local/include")):
            headers.append(h)
    return headers


def dump(clang):
    headers = public_headers()
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "reference_tu.cpp")
        with open(tu, "w") as f:
            for h in headers:
                f.write("#include <%s>\n" % h)
        cmd = [clang, "-std=c++20", "-I", os.path.join(ROOT, "include"), "-fsyntax-only",
               "-fno-color-diagnostics", "-w", "-Xclang", "-ast-dump", "-Xclang", "-ast-dump-filter=travpool", tu]
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace")
        if p.returncode != 0:
            sys.stderr.write(p.stderr)
            sys.exit("check_reference: %s failed on the public headers" % clang)
        return p.stdout.split("\n"), headers


def documented():
    d = os.path.join(ROOT, "docs", "reference")
    names = {}
    for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if fn.endswith(".md"):
            with open(os.path.join(d, fn), encoding="utf-8") as f:
                fence = None  # markers in code blocks and code spans are examples
                for i, line in enumerate(f, 1):
                    m = re.match(r"\s*(`{3,}|~{3,})", line)
                    if m:
                        if fence is None:
                            fence = m.group(1)
                        elif m.group(1).startswith(fence) and not line.strip()[len(m.group(1)):]:
                            fence = None
                        continue
                    if fence is not None:
                        continue
                    for m in MARKER.finditer(line):
                        if line[:m.start()].count("`") % 2 == 0:
                            names.setdefault(m.group(1), "docs/reference/%s:%d" % (fn, i))
    return names


CONTRACT_WORDS = ("Effects", "Returns", "Throws", "Complexity", "Thread-safety", "Thread safety", "Invalidation",
                  "Invalidates", "Requires", "Precondition", "Preconditions", "Postcondition", "Note", "Iteration order")
CONTRACT_SPLIT = re.compile(r"(?<![\w`])(?=(?:%s):)" % "|".join(re.escape(w) for w in CONTRACT_WORDS))


def contract_lines(comment):
    """A header comment as Markdown: one line per Effects:/Returns:/... clause."""
    text = " ".join(l.strip() for l in comment.split("\n")
                    if l.strip() and not l.strip().startswith(("---", "===")))
    parts = [p.strip() for p in CONTRACT_SPLIT.split(text) if p.strip()]
    out = []
    for p in parts:
        m = re.match(r"(%s):\s*(.*)" % "|".join(re.escape(w) for w in CONTRACT_WORDS), p, re.S)
        line = "- **%s:** %s" % (m.group(1), m.group(2)) if m else p
        if out and (line.startswith("- ") != out[-1].startswith("- ")):
            out.append("")  # a paragraph and a list are apart
        out.append(line)
    return out


def comment_markdown(comment):
    """A header comment as Markdown lines: aligned tables and equations stay
    preformatted, prose becomes one line per Effects:/Returns:/... clause."""
    lines, in_rule = [], False
    for l in comment.split("\n"):  # drop section rules: "--- editing (...\n ...) ---"
        t = l.strip()
        if t.startswith(("---", "===")):
            in_rule = not (t.endswith("---") and len(t) > 3) and not t.strip("-= ") == ""
            continue
        if in_rule:
            in_rule = not t.endswith("---")
            continue
        lines.append(l)
    out, prose = [], []

    def flush():
        if prose:
            if out and out[-1] != "":
                out.append("")
            out.extend(contract_lines("\n".join(prose)))
            prose.clear()

    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith(" ") or re.search(r"\S {3,}\S", l):  # indented or aligned: keep its layout
            flush()
            block = []
            while i < len(lines) and (lines[i].startswith(" ") or re.search(r"\S {3,}\S", lines[i])
                                      or (block and not lines[i].strip())):
                block.append(lines[i])
                i += 1
            if out and out[-1] != "":
                out.append("")
            out += ["```text"] + block + ["```", ""]
            continue
        prose.append(l)
        i += 1
    flush()
    while out and out[-1] == "":
        out.pop()
    return out


def one_line(sig):
    return re.sub(r"\s+", " ", sig).replace("( ", "(").strip().rstrip(";")


def contract_body(decls):
    """The contract lines of an entry: each overload's own comment, under its
    signature when the overloads have different comments."""
    with_comment = [d for d in decls if d[3]]
    distinct = []
    for d in with_comment:
        if d[3] not in distinct:
            distinct.append(d[3])
    body = []
    for c in distinct:
        if len(distinct) > 1:
            sig = next(one_line(d[2]) for d in with_comment if d[3] == c)
            if body:
                body.append("")
            body.append("`%s`:" % sig.replace("`", "'"))
            body.append("")
        body += comment_markdown(c)
    sigs = [d[2] for d in decls]
    if sigs and all(re.search(r"\bnoexcept\b(?!\s*\()", s) for s in sigs) and not any("Throws" in c for c in distinct):
        if body and not body[-1].startswith("- "):
            body.append("")
        body.append("- **Throws:** nothing (noexcept).")
    return body


def entry_signatures():
    """name -> the declarations in the cpp blocks of its entry, on one line each."""
    d = os.path.join(ROOT, "docs", "reference")
    out = {}
    for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not fn.endswith(".md"):
            continue
        with open(os.path.join(d, fn), encoding="utf-8") as f:
            text = f.read()
        for entry in re.split(r"\n(?=### )", text):
            names = [m.group(1) for m in MARKER.finditer(entry)]
            code = " ".join(re.findall(r"```cpp\n(.*?)```", entry, re.S))
            for n in names:
                out[n] = re.sub(r"\s+", "", code)
    return out


def changed_signatures(api):
    """Names whose current declarations are not all in their entry's cpp block."""
    have = entry_signatures()
    changed = []
    for n, decls in api.items():
        if n not in have:
            continue
        for d in decls:
            sig = re.sub(r"\s+", "", d[2].split("  //")[0].rstrip(";"))
            if sig not in have[n]:
                changed.append((n, d))
                break
    return changed


def skeleton(name, decls):
    short = name.split("::", 1)[1] if name.count("::") > 1 else name
    out = ["### `%s`" % short, "<!-- ref: %s -->" % name, "", "```cpp"]
    out += [d[2] for d in decls]
    out += ["```", ""]
    body = contract_body(decls)
    if body:
        out += body + [""]
    out.append("Declared in `<%s>` (line %d)." % (decls[0][0], decls[0][1]))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clang", help="the compiler to dump the AST with (default clang++-14)")
    ap.add_argument("--skeleton", action="store_true", help="print a Markdown entry per missing name")
    ap.add_argument("--list", action="store_true", help="print every public name with its header and line")
    ap.add_argument("--dump", help="read this AST text dump instead of running clang")
    args = ap.parse_args()
    if args.dump:
        with open(args.dump, encoding="utf-8", errors="replace") as f:
            lines, headers = f.read().split("\n"), HEADERS
    else:
        clang = find_clang(args.clang)
        if not clang:
            print("check_reference: SKIPPED: clang++-14 not found (it reads the public API from Clang's AST)")
            return 77
        lines, headers = dump(clang)
    api = enumerate_api(lines)
    if args.list:
        for n, ds in api.items():
            print("%s  (%s:%d)" % (n, ds[0][0], ds[0][1]))
        return 0
    docs = documented()
    missing = [n for n in api if n not in docs]
    stale = [n for n in docs if n not in api]
    print("check_reference: %d public names in %d headers (%s); %d entries in docs/reference/" %
          (len(api), len(headers), ", ".join(headers), len(docs)))
    if missing:
        print("\nMISSING: %d public names have no entry (add `<!-- ref: NAME -->` to an entry in "
              "docs/reference/*.md; --skeleton prints entries to paste):" % len(missing))
        for n in missing:
            f, l = api[n][0][0], api[n][0][1]
            print("  %-60s include/%s:%d" % (n, f, l))
    if stale:
        print("\nSTALE: %d entries name nothing public (renamed or removed?):" % len(stale))
        for n in stale:
            print("  %-60s %s" % (n, docs[n]))
    if args.skeleton and missing:
        print("\n---- skeleton entries ----\n")
        for n in missing:
            print(skeleton(n, api[n]))
    changed = changed_signatures(api)
    if changed:
        print("\nWARNING: %d entries do not show a current declaration of their name (a changed signature, "
              "or an entry written by hand; not a failure):" % len(changed))
        for n, d in changed:
            print("  %-60s include/%s:%d: %s" % (n, d[0], d[1], one_line(d[2])[:100]))
    if missing or stale:
        return 1
    print("check_reference: OK, every public name has an entry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
