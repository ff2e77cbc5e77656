"""What a child's callees do, where they are defined in the headers its file includes (cuda/headers.py).

A callee in a project header that synchronises, shares memory or reads the built-in indices changes what
pdcc may do with the child: run it serially (threshold), or as a consolidated item of a thread or a block.
Headers are found as the preprocessor finds them; only those included with quotes are read.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_pdcc
from pragmadp.cuda import frontend, headers, preprocessor
from pragmadp.pipeline import transform, transform_path
from pragmadp.source import SourceFile

THRESHOLD_PARENT = """
__global__ void parent(int* x, int n) {
#pragma dp threshold(16)
  child<<<(n + 31) / 32, 32>>>(x, n);
}
"""

BARRIER_HEADER = """\
#pragma once
namespace tile {
__device__ inline void settle(int* x) {
  x[0] += 1;
  __syncthreads();
}
}  // namespace tile
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def threshold_remarks(tmp_path: Path, include: str, include_dirs: tuple[str, ...] = ()):
    child = f'{include}\n__global__ void child(int* x, int n) {{ tile::settle(x); }}\n'
    source = write(tmp_path / "src" / "k.cu", child + THRESHOLD_PARENT)
    return transform_path(str(source), "src/k.cu", include_dirs=include_dirs).remarks


@pytest.mark.parametrize("header, wait", [
    ("__device__ inline bool peek(const int* p) { return *(const volatile int*)p != 0; }", "while (!peek(x)) {}"),
    ("__device__ volatile int ready;", "while (!ready) {}"),
])
def test_a_wait_through_a_header_is_found_and_quoted_from_the_header(tmp_path: Path, header: str, wait: str):
    """The read is quoted from the file it is in (a review found the including file's bytes at the header's
    offsets: another file's text, or a UnicodeDecodeError where they split a character)."""
    write(tmp_path / "src" / "w.cuh", "// helpers.\n" + header + "\n")
    source = write(tmp_path / "src" / "k.cu", "// " + "é" * 60 + "\n#include \"w.cuh\"\n"
                   f"__global__ void child(int* x, int n) {{ {wait} x[1] = n; }}\n" + THRESHOLD_PARENT)
    (missed,) = [r for r in transform_path(str(source), "src/k.cu").remarks if r.kind.value == "missed"]
    quoted = "(const volatile int*)p" if "peek" in header else "ready"
    assert missed.rule.id == "PDCC526" and f"its way out reads '{quoted}'" in missed.message


def test_a_barrier_in_a_header_callee_keeps_the_child_from_running_serially(tmp_path: Path):
    write(tmp_path / "src" / "tile.cuh", BARRIER_HEADER)
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"')
    missed = [r for r in remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC510"]
    message = missed[0].message
    # where it is in the header, and where the call that leads there is in the file
    assert "'__syncthreads' (in 'settle', which it calls, src/tile.cuh:5) at line 2" in message
    assert missed[0].location.file == "src/k.cu"


def test_a_class_of_a_header_that_an_object_builds_implicitly_is_searched(tmp_path: Path):
    """A member's class in one header, the class that holds it in another: the member's constructor runs
    where the child declares the holder, without a word of it in the child."""
    write(tmp_path / "src" / "tile.cuh", "#pragma once\nstruct Tile { __device__ Tile() { __syncthreads(); } };\n")
    write(tmp_path / "src" / "holder.cuh", '#pragma once\n#include "tile.cuh"\nstruct Holder { int k; Tile t; };\n')
    child = '#include "holder.cuh"\n__global__ void child(int* x, int n) { Holder h; x[0] = h.k; }\n'
    source = write(tmp_path / "src" / "k.cu", child + THRESHOLD_PARENT)
    missed = [r for r in transform_path(str(source), "src/k.cu").remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC510"]
    assert "'__syncthreads' (in 'Tile', which it calls, src/tile.cuh:2) at line 2" in missed[0].message


def test_a_header_is_found_in_the_include_directories_after_the_including_files_own(tmp_path: Path):
    write(tmp_path / "include" / "tile.cuh", BARRIER_HEADER)
    assert not [r for r in threshold_remarks(tmp_path, '#include "tile.cuh"') if r.kind.value == "missed"]
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"', (str(tmp_path / "include"),))
    assert [r.rule.id for r in remarks if r.kind.value == "missed"] == ["PDCC510"]
    # beside the file comes first: a harmless tile.cuh there hides the one in the include directory
    write(tmp_path / "src" / "tile.cuh", "namespace tile { __device__ inline void settle(int* x) { x[0] = 1; } }\n")
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"', (str(tmp_path / "include"),))
    assert not [r for r in remarks if r.kind.value == "missed"]


def test_headers_are_followed_through_the_headers_they_include(tmp_path: Path):
    write(tmp_path / "src" / "detail" / "tile.cuh", BARRIER_HEADER)
    write(tmp_path / "src" / "all.cuh", '#pragma once\n#include "detail/tile.cuh"\n#include "all.cuh"\n')
    remarks = threshold_remarks(tmp_path, '#include "all.cuh"')
    missed = [r for r in remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC510"] and "src/detail/tile.cuh:5" in missed[0].message


@pytest.mark.parametrize("include", [
    '#include <tile.cuh>',             # <...>: a library's or the system's, not read
    '#if 0\n#include "tile.cuh"\n#endif',  # certainly skipped
    '// #include "tile.cuh"',
])
def test_headers_the_preprocessor_would_not_read_through_quotes_are_not_read(tmp_path: Path, include: str):
    write(tmp_path / "src" / "tile.cuh", BARRIER_HEADER)
    remarks = threshold_remarks(tmp_path, include, (str(tmp_path / "src"),))
    assert not [r for r in remarks if r.kind.value == "missed"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_a_directory_named_as_a_header_is_never_opened(tmp_path: Path):
    (tmp_path / "src").mkdir()
    os.mkfifo(tmp_path / "src" / "tile.cuh")  # reading it would block forever
    (tmp_path / "src" / "dir.cuh").mkdir()
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"\n#include "dir.cuh"')
    assert not [r for r in remarks if r.kind.value == "missed"]
    (unread,) = [r for r in remarks if r.rule.id == "PDCC603"]   # the FIFO is said; a directory is no header
    assert "'tile.cuh' is not read (not a regular file)" in unread.message
    assert (unread.location.file, unread.location.line, unread.location.column) == ("src/k.cu", 1, 10)


def test_a_header_too_large_to_read_is_said_where_it_is_included(tmp_path: Path):
    """A callee in it cannot be seen: the child's serial copy is made, and the remark says why pdcc could not
    look."""
    write(tmp_path / "src" / "k.cuh", '#include "huge.cuh"\n')
    with open(tmp_path / "src" / "huge.cuh", "wb") as huge:
        huge.truncate(preprocessor.HEADER_LIMIT + (1 << 20))   # sparse: nothing is written, nothing read
    remarks = threshold_remarks(tmp_path, '#include "k.cuh"')
    (unread,) = [r for r in remarks if r.rule.id == "PDCC603"]
    assert unread.kind.value == "analysis" and unread.message.startswith(
        "'huge.cuh' is not read (17 MiB, over the 16 MiB pdcc reads): pdcc does not see its functions")
    assert (unread.location.file, unread.location.line) == ("src/k.cuh", 1)   # in the header that includes it


@pytest.mark.parametrize("auto", [None, "threshold(128)"])
def test_a_file_without_a_site_says_nothing_of_its_headers(tmp_path: Path, auto: str | None):
    with open(tmp_path / "huge.cuh", "wb") as huge:
        huge.truncate(preprocessor.HEADER_LIMIT + 1)
    source = write(tmp_path / "k.cu", '#include "huge.cuh"\n__global__ void k(int* x) { if (x) x[0] = 1; }\n'
                                      "int main() { return 0; }\n")
    assert [r.rule.id for r in transform_path(str(source), auto=auto).remarks] == []


def test_a_header_helper_that_reads_an_index_keeps_the_serial_copy_from_computing_wrong_indices(tmp_path: Path):
    """The serial version passes the child's indices as parameters; a header's `gid()` would read the parent's."""
    write(tmp_path / "src" / "index.cuh", "__device__ inline int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }\n")
    source = write(tmp_path / "src" / "k.cu", '#include "index.cuh"\n'
                   "__global__ void child(int* x, int n) { int i = gid(); if (i < n) x[i] = 1; }\n" + THRESHOLD_PARENT)
    remarks = transform_path(str(source)).remarks
    assert [r.rule.id for r in remarks] == ["PDCC518"]
    assert "'blockIdx' (in 'gid', which it calls, " in remarks[0].message and "/src/index.cuh:1)" in remarks[0].message


def test_a_macro_of_a_header_that_reads_an_index_is_seen(tmp_path: Path):
    write(tmp_path / "src" / "index.cuh", "#define GID (blockIdx.x * blockDim.x + threadIdx.x)\n")
    source = write(tmp_path / "src" / "k.cu", '#include "index.cuh"\n'
                   "__global__ void child(int* x, int n) { int i = GID; if (i < n) x[i] = 1; }\n" + THRESHOLD_PARENT)
    remarks = transform_path(str(source)).remarks
    assert [r.rule.id for r in remarks] == ["PDCC518"] and "macro 'GID'" in remarks[0].message


def test_a_qualified_or_template_call_in_the_file_itself_is_followed():
    for call, helper in [("tile::settle(x)", "namespace tile { __device__ void settle(int* x) { __syncthreads(); } }"),
                         ("settle<int>(x)", "template <typename T> __device__ void settle(T* x) { __syncthreads(); }")]:
        text = f"{helper}\n__global__ void child(int* x, int n) {{ {call}; }}\n{THRESHOLD_PARENT}"
        remarks = transform(SourceFile("k.cu", text.encode())).remarks
        assert [r.rule.id for r in remarks] == ["PDCC510"], call
        assert "(in 'settle', which it calls) at line 1" in remarks[0].message  # the barrier's own line


@pytest.mark.parametrize("call", ["t.settle()", "(&t)->settle()"])
def test_a_method_call_is_followed(call: str):
    text = "struct Tile { int* x; __device__ void settle() { __syncthreads(); } };\n" \
           f"__global__ void child(int* x, int n) {{ Tile t{{x}}; {call}; }}\n{THRESHOLD_PARENT}"
    remarks = transform(SourceFile("k.cu", text.encode())).remarks
    assert [r.rule.id for r in remarks] == ["PDCC510"] and "(in 'settle', which it calls)" in remarks[0].message


def test_a_header_with_bytes_that_are_not_utf8_is_read_all_the_same(tmp_path: Path):
    """nvcc compiles a header with a Latin-1 comment; pdcc reads those bytes as spaces."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tile.cuh").write_bytes(b"// (c) M\xfcller\nnamespace tile { __device__ void settle(int* x) {\n"
                                                b"  \xff\xfe __syncthreads(); } }\n")
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"')
    missed = [r for r in remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC510"] and "src/tile.cuh:3" in missed[0].message


def test_the_headers_read_are_bounded(tmp_path: Path):
    """A header chain longer than MAX_HEADERS stops being read there (each header includes the next)."""
    count = headers.MAX_HEADERS + 5
    for i in range(count):
        write(tmp_path / f"h{i}.cuh", f'#include "h{i + 1}.cuh"\n')
    unit = frontend.parse(SourceFile(str(tmp_path / "k.cu"), b'#include "h0.cuh"\n'))
    found = headers.included(unit)
    assert len(found) == headers.MAX_HEADERS and found[0].source.display_path == str(tmp_path / "h0.cuh")
    (past,) = headers.not_read(unit)
    assert past.name == f"h{headers.MAX_HEADERS}.cuh" and past.source is found[-1].source
    assert past.why == f"past the {headers.MAX_HEADERS} headers pdcc reads, with the headers it includes"


def test_quoted_includes_name_the_span_of_the_name_in_the_including_file(tmp_path: Path):
    write(tmp_path / "a.cuh", "int a;\n")
    data = b'#include /* here */ "a.cuh"\n#include "missing.cuh"\n'
    found = preprocessor.quoted_includes(preprocessor.scan(data), str(tmp_path), ())
    assert [(i.name, data[i.span[0]:i.span[1]]) for i in found] == [("a.cuh", b'"a.cuh"')]


def test_the_mandelbrot_sample_runs_its_items_as_launched_because_of_its_header():
    """mandelbrot.cuh's border_dwell synchronises its block and shares memory: its items must run block by
    block as launched, never as a block of another size running several items' threads."""
    sample = ROOT / "samples" / "mandelbrot" / "mandelbrot_dp.cu"
    result = transform_path(str(sample), include_dirs=(str(ROOT / "samples" / "common"),))
    applied = [r for r in result.remarks if r.rule.id == "PDCC570"]
    assert len(applied) == 1 and "block by block, as launched" in applied[0].message


@pytest.mark.parametrize("flag", [["-I", "include"], ["-Iinclude"], ["--include-path=other,include"], ["-isystem", "include"]])
def test_the_commands_include_directories_reach_the_analysis(tmp_path: Path, flag: list[str]):
    write(tmp_path / "include" / "tile.cuh", BARRIER_HEADER)
    write(tmp_path / "src" / "k.cu", '#include "tile.cuh"\n__global__ void child(int* x, int n) { tile::settle(x); }\n'
          + THRESHOLD_PARENT)
    done = run_pdcc("-q", "-Rpass-missed=.*", *flag, "-rdc=true", "-c", "src/k.cu", cwd=tmp_path,
                    env={"PDCC_NVCC": shutil.which("true") or "/bin/true"})
    assert "src/k.cu:5:12: remark: child 'child' synchronises its threads with '__syncthreads' (in 'settle', which it " \
           "calls, include/tile.cuh:5) at line 2; the launch is left as written [PDCC510]" in done.stderr


@pytest.mark.parametrize("shadow", [
    "void settle(int* x, int n) {}",                              # a host function of the file
    "struct S { __device__ void settle(int* x) {} };",            # a method of the file
])
def test_a_function_of_the_file_with_the_same_name_does_not_hide_the_headers(tmp_path: Path, shadow: str):
    write(tmp_path / "src" / "tile.cuh", BARRIER_HEADER)
    remarks = threshold_remarks(tmp_path, f'#include "tile.cuh"\n{shadow}')
    assert [r.rule.id for r in remarks if r.kind.value == "missed"] == ["PDCC510"]


def test_one_header_reached_by_two_paths_is_read_once(tmp_path: Path):
    write(tmp_path / "inc" / "tile.cuh", BARRIER_HEADER)
    write(tmp_path / "src" / "both.cuh", '#include "../inc/tile.cuh"\n#include "tile.cuh"\n')
    source = write(tmp_path / "src" / "k.cu", '#include "both.cuh"\n')
    unit = frontend.parse(SourceFile.load(str(source)), include_dirs=(str(tmp_path / "inc"),))
    assert [h.source.display_path for h in headers.included(unit)] == [
        str(tmp_path / "src" / "both.cuh"), str(tmp_path / "src" / "../inc/tile.cuh")]


def test_the_first_file_found_is_the_header_even_when_pdcc_does_not_read_it(tmp_path: Path):
    """A FIFO named tile.cuh beside the file is what the preprocessor takes: the include directory's
    tile.cuh is not it."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    (tmp_path / "src").mkdir()
    os.mkfifo(tmp_path / "src" / "tile.cuh")
    write(tmp_path / "include" / "tile.cuh", BARRIER_HEADER)
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"', (str(tmp_path / "include"),))
    assert not [r for r in remarks if r.kind.value == "missed"]


def test_a_header_is_parsed_only_when_a_name_looked_up_occurs_in_it(tmp_path: Path):
    write(tmp_path / "src" / "weights.h", "const float w[] = {" + "1.0f, " * 1000 + "};\n")
    write(tmp_path / "src" / "tile.cuh", BARRIER_HEADER)
    source = write(tmp_path / "src" / "k.cu", '#include "weights.h"\n#include "tile.cuh"\n')
    unit = frontend.parse(SourceFile.load(str(source)))
    weights, tile = headers.included(unit)
    assert headers.definitions(unit, "settle")[0][1].name == "settle"
    assert "unit" in vars(tile) and "unit" not in vars(weights)


@pytest.mark.parametrize("prototype", [
    "__device__ void settle(int* x);",
    "extern __device__ void settle(int* x);",
    "__device__ __noinline__ int* settle(int* x);",   # a pointer return: the declarator is nested
    "DEV void settle(int* x);",                        # qualified through a macro, defined in another header
    "static HD inline void settle(int* x);",
    "DEV unsigned settle(int* x);",                    # the macro inside a sized type
    "QUAL long long settle(int* x);",                  # a macro for a macro for __device__
])
def test_a_device_function_declared_but_defined_in_another_translation_unit_stops_every_pass(tmp_path: Path,
                                                                                           prototype: str):
    """With -rdc its definition is another .cu file's: pdcc cannot see whether it synchronises."""
    write(tmp_path / "src" / "qualifiers.cuh", "#define DEV __device__\n#define HD __host__ __device__\n"
                                                "#define QUAL HD\n")
    write(tmp_path / "src" / "tile.cuh", f'#include "qualifiers.cuh"\nnamespace tile {{ {prototype} }}\n')
    remarks = threshold_remarks(tmp_path, '#include "tile.cuh"')
    missed = [r for r in remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC524"]
    assert "calls 'settle', a device function declared but not defined in this file or the headers it includes " \
           "(another translation unit)" in missed[0].message and "at line 2" in missed[0].message


@pytest.mark.parametrize("clauses, rule", [("coarsen(4)", "PDCC524"), ("consldt(block)", "PDCC524")])
def test_coarsening_and_aggregation_refuse_an_unseen_callee_too(clauses: str, rule: str):
    text = "__device__ void settle(int* x);\n__global__ void child(int* x, int n) { settle(x); }\n" + \
        THRESHOLD_PARENT.replace("threshold(16)", clauses)
    remarks = transform(SourceFile("k.cu", text.encode())).remarks
    assert [r.rule.id for r in remarks if r.kind.value == "missed"] == [rule]


def test_a_host_prototype_or_a_defined_device_function_is_no_obstacle():
    for declared in ("void settle(int* x);\n", "__device__ void settle(int* x);\n__device__ void settle(int* x) {}\n"):
        text = declared + "__global__ void child(int* x, int n) { settle(x); }\n" + THRESHOLD_PARENT
        remarks = transform(SourceFile("k.cu", text.encode())).remarks
        assert "PDCC500" in [r.rule.id for r in remarks] and not [r for r in remarks if r.kind.value == "missed"], declared


@pytest.mark.parametrize("declared, call, missed", [
    ("struct Tile { __device__ void settle(int* x); };", "Tile t; t.settle(x);", ["PDCC524"]),   # a member
    ("#if 0\n__device__ void settle(int* x);\n#endif", "settle(x);", []),    # skipped by the preprocessor
    ("__device__ float __expf(float);", "x[0] = (int)__expf(1.0f);", []),     # CUDA's, however declared
    ("#define HOST __host__\nHOST void settle(int* x);", "settle(x);", []),    # a macro, not for the device
    ("struct Box {};\nBox settle(int* x);", "settle(x);", []),                 # a host function returning a class
])
def test_which_prototypes_are_of_another_translation_unit(declared: str, call: str, missed: list[str]):
    text = f"{declared}\n__global__ void child(int* x, int n) {{ {call} }}\n{THRESHOLD_PARENT}"
    remarks = transform(SourceFile("k.cu", text.encode())).remarks
    assert [r.rule.id for r in remarks if r.kind.value == "missed"] == missed


def test_a_callee_whose_qualifiers_are_a_macro_is_followed():
    """`DEV` hides `__device__` from pdcc; a function device code calls runs on the device all the same."""
    text = "#define DEV __device__ __forceinline__\nDEV void settle(int* x) { __syncthreads(); }\n" \
           "__global__ void child(int* x, int n) { settle(x); }\n" + THRESHOLD_PARENT
    remarks = transform(SourceFile("k.cu", text.encode())).remarks
    assert [r.rule.id for r in remarks if r.kind.value == "missed"] == ["PDCC510"]
