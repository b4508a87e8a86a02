#!/usr/bin/env python3
"""Sizes of the sources: no file over 450 lines, no function over 60 (docs/design.md, "Sizes").

Files: every product source (the floors' folders of check_floors.py) and the test-support code: every source
under tests/ that is not a test itself (tests/support/, the test plugins, helper programs, fuzz targets,
builders). Test files (tests/**/*_test.cc) are not held to it.

Functions: a function's length is the number of lines from the line of its body's opening brace to the line
of its closing brace, both counted. Lambdas and local classes count toward the function that holds them. A
function is any brace that opens, outside another function's body, after a header that ends in a parameter
list (with its qualifiers, trailing return type or constructor initialisers). The scan runs on code with
comments and string literals blanked out, as clang-format leaves it; it is a count of lines, not a parser.

Usage: check_sizes.py SOURCE_ROOT     exit 0 when clean; otherwise one line per file or function over
                                      its limit, FILE:LINE: what (N lines), and exit 1.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_floors import FLOORS, report, source_files, source_root_argument  # noqa: E402

MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 60
SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".c")
# A header whose last significant text is one of these opens a definition that is not a function.
NOT_FUNCTION_KEYWORDS = re.compile(r"^\s*(?:template\s*<[^{]*>\s*)?(?:class|struct|union|enum|namespace|extern)\b")


def held_to_limits(path):
    """True for the product and test-support sources the limits apply to."""
    if not path.endswith(SOURCE_SUFFIXES):
        return False
    folder = path.split("/", 1)[0]
    if folder in FLOORS:
        return True
    # Test-support code: what tests build and link besides the tests themselves (tests/support/, the test
    # plugins, the simulator's peer program, the fuzz targets, builders); a `*_test.cc` file is a test.
    return folder == "tests" and not path.endswith("_test.cc")


def blank_literals(text):
    """TEXT with comments, string and character literals replaced by spaces, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren]
            end = text.find(")" + delimiter + '"', open_paren)
            end = n if end < 0 else end + len(delimiter) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator, 1'000'000
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def is_function_header(header):
    """True when HEADER (the code between the previous statement or block and a `{`) declares a function."""
    header = re.sub(r"#[^\n]*", " ", header)  # preprocessor lines
    header = " ".join(header.split())
    if "(" not in header or NOT_FUNCTION_KEYWORDS.match(header):
        return False
    head = header[:header.index("(")]
    if "=" in head.replace("operator=", "").replace("operator==", "") or head.rstrip().endswith(("return", "[")):
        return False  # an initialiser or a lambda at namespace scope
    # The parameter list, then qualifiers, a trailing return type or constructor initialisers.
    return re.search(r"\)\s*(?:const|noexcept(?:\([^)]*\))?|override|final|mutable|&|&&|\s)*"
                     r"(?:->[^;{}]*|:[^;]*)?$", header) is not None


def ends_as_initialiser(header):
    """True when the `{` after HEADER opens a braced initialiser: HEADER ends in a name or `=`, `,`, `(`, `[`,
    and not in a parameter list's qualifiers (`) const`) or a trailing return type (`) -> Type`)."""
    text = header.rstrip()
    if not re.search(r"(?:[\w>\]]|[=,(\[])$", text):
        return False
    after = text[text.rfind(")") + 1:] if ")" in text else None
    if after is None:
        return True
    return not (re.fullmatch(r"(?:\s|const|noexcept|override|final|mutable|&)*", after) or "->" in after)


def function_lengths(code):
    """(first line, length in lines, name) of each function body in CODE (blanked of literals)."""
    found, stack, header_start = [], [], 0
    in_function = 0
    line = 1
    line_of = []
    for ch in code:
        line_of.append(line)
        if ch == "\n":
            line += 1
    for i, ch in enumerate(code):
        if ch == "{":
            header = code[header_start:i]
            if in_function:
                kind = "block"
            elif NOT_FUNCTION_KEYWORDS.match(" ".join(re.sub(r"#[^\n]*", " ", header).split())):
                kind = "scope"  # a namespace, class, struct, union, enum or extern "C" block
            elif ends_as_initialiser(header):
                kind = "init"  # a braced initialiser (`b_{x}`, `= {`): the header goes on after it
            elif is_function_header(header):
                kind = "function"
                in_function += 1
            else:
                kind = "scope"
            name = ""
            if kind == "function":
                match = re.search(r"([~\w:<>,\s*&=!+\-\[\]]+)\s*\(", header[:header.index("(") + 1])
                name = match.group(1).split()[-1] if match and match.group(1).split() else "?"
            stack.append((kind, i, name))
            if kind != "init":
                header_start = i + 1
        elif ch == "}":
            if not stack:
                continue
            kind, start, name = stack.pop()
            if kind == "function":
                in_function -= 1
                found.append((line_of[start], line_of[i] - line_of[start] + 1, name))
            if kind != "init":
                header_start = i + 1
        elif ch == ";" and not in_function and not (stack and stack[-1][0] == "init"):
            header_start = i + 1
    return found


def check(root, files):
    problems = []
    for path in sorted(f for f in files if held_to_limits(f)):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_FILE_LINES:
            problems.append(f"{path}:1: file of {lines} lines (at most {MAX_FILE_LINES})")
        for first, length, name in function_lengths(blank_literals(text)):
            if length > MAX_FUNCTION_LINES:
                problems.append(f"{path}:{first}: function {name} of {length} lines (at most {MAX_FUNCTION_LINES})")
    return problems


def main():
    root = source_root_argument(__doc__)
    if root is None:
        return 2
    files = source_files(root)
    problems = check(root, files)
    return report(problems, "{count} size problem(s); the limits are in docs/design.md, \"Sizes\"",
                  f"sizes: every file at most {MAX_FILE_LINES} lines, every function at most {MAX_FUNCTION_LINES}")


if __name__ == "__main__":
    sys.exit(main())
