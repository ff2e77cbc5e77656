"""The threshold pass on small cases: why a child cannot run serially, and the shapes it must handle."""

from __future__ import annotations

import re
import shutil
import textwrap

import pytest

from conftest import assert_compiles, host_build_and_run
from pragmadp.pipeline import transform, transform_path
from pragmadp.source import SourceFile

PARENT = """
__global__ void parent(int* x, int n) {
#pragma dp threshold(16)
  child<<<(n + 31) / 32, 32>>>(x, n);
}
"""


def run(child: str, parent: str = PARENT):
    return transform(SourceFile("t.cu", (textwrap.dedent(child) + parent).encode()))


@pytest.mark.parametrize("body, rule, words", [
    ("__syncthreads();", "PDCC510", "synchronises its threads with '__syncthreads'"),
    ("__syncwarp();", "PDCC510", "'__syncwarp'"),
    ("__shared__ int s[32]; s[0] = 1;", "PDCC511", "uses __shared__ memory"),
    ("extern __shared__ int dyn[]; dyn[0] = 1;", "PDCC511", "uses __shared__ memory"),
    ("x[0] = __shfl_sync(0xffffffff, x[0], 0);", "PDCC512", "warp intrinsic '__shfl_sync'"),
    ("if (__ballot_sync(__activemask(), n > 0)) x[0] = 1;", "PDCC512", "'__ballot_sync'"),
    ("auto b = cooperative_groups::this_thread_block(); b.sync();", "PDCC513", "cooperative groups"),
    ("if (n > 1) child<<<1, 1>>>(x, n / 2);", "PDCC514", "launches itself"),
    ('asm volatile("membar.gl;");', "PDCC516", "inline assembly"),
    ("__nanosleep(64); x[0] = n;", "PDCC525", "calls '__nanosleep'"),
    ("while (atomicAdd(x, 0) == 0) __nanosleep(64);", "PDCC526", "waits in a loop for another thread (its way out "
     "reads 'atomicAdd(x, 0)', which other threads write)"),
])
def test_children_that_cannot_run_serially(body: str, rule: str, words: str):
    result = run(f"__global__ void child(int* x, int n) {{ {body} }}\n")
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == [rule]
    assert words in missed[0].message and "the launch is left as written" in missed[0].message
    assert (missed[0].location.line, missed[0].location.column) == (4, 12)  # the threshold clause
    assert "child<<<(n + 31) / 32, 32>>>(x, n);" in result.text
    assert "__pdcc_serial" not in result.text


def test_a_sleeping_child_keeps_no_serial_version_but_is_coarsened_and_aggregated(tmp_path):
    """A yield point in the serial loop hangs the warp beside its launching lanes (PDCC525): no serial version
    anywhere, not even as a failed launch's fallback (pdcc::Retry); the other passes do not run it so."""
    parent = PARENT.replace("threshold(16)", "threshold(16) coarsen(4) consldt(block)")
    result = run("__global__ void child(int* x, int n) { for (int i = 0; i < n; ++i) __nanosleep(64); }\n", parent)
    assert [(r.rule.id, r.kind.value) for r in result.remarks if r.kind.value != "analysis"] == [
        ("PDCC525", "missed"), ("PDCC550", "applied"), ("PDCC560", "applied")]
    assert "__pdcc_serial" not in result.text and "pdcc::Retry()" in result.text
    assert_compiles(result.text, tmp_path)


@pytest.mark.parametrize("before, body, read", [
    ("", "while (*(volatile int*)x == 0) {}", "(volatile int*)x"),                  # a cast to volatile
    ("", "volatile int* flag = x; while (flag[1] == 0) {}", "flag"),                  # a volatile pointer
    ("", "int v; do { v = atomicAdd(x, 0); } while (v == 0);", "atomicAdd(x, 0)"),    # through a variable
    ("", "for (;;) { if (atomicOr_system(x + 1, 0) != 0) break; x[2] += 1; }", "atomicOr_system(x + 1, 0)"),
    ("", "while (atomicCAS(x, 1, 1) != 1) {}", "atomicCAS(x, 1, 1)"),
    ("", "while (__atomic_load_n(x, __ATOMIC_ACQUIRE) == 0) {}", "__atomic_load_n(x, __ATOMIC_ACQUIRE)"),
    ("", "while (cuda::atomic_ref<int, cuda::thread_scope_device>(x[0]).load() == 0) {}",
     "cuda::atomic_ref<int, cuda::thread_sc..."),                                    # (40 characters shown)
    ("__device__ volatile int ready;", "while (!ready) {} x[0] = n;", "ready"),        # a volatile global
    ("struct Queue { volatile int head; };", "Queue* q = (Queue*)x; while (q->head == 0) {}", "head"),
    ("__device__ int peek(const int* p) { return *(const volatile int*)p; }", "while (peek(x) == 0) {}",
     "(const volatile int*)p"),                                                       # in a function it calls
    ("__device__ void await(int* p) { while (atomicAdd(p, 0) == 0) {} }", "await(x); x[1] = n;",
     "atomicAdd(p, 0)"),                                                              # a callee's own loop
    # a review's: macros, literals of other types, a flag set under an if, a loop left by return, atomic objects
    ("#define READ_ONCE(p) (*(volatile int*)(p))", "while (READ_ONCE(x) == 0) {}", "READ_ONCE"),
    ("", "while (atomicAdd(x, 0u) == 0) {}", "atomicAdd(x, 0u)"),
    ("", "while (atomicAnd(x, ~0u) == 0) {}", "atomicAnd(x, ~0u)"),
    ("", "bool done = false; while (!done) { if (atomicAdd(x, 0) > 0) done = true; }", "atomicAdd(x, 0)"),
    ("", "while (true) { if (atomicXor(x, 0) != 0) return; x[1] += 1; }", "atomicXor(x, 0)"),
    ("", "do { x[1] += 1; } while (atomicAdd_block(x, 0) == 0);", "atomicAdd_block(x, 0)"),
    ("", "const cuda::atomic<int>* flag = (const cuda::atomic<int>*)x; while (*flag == 0) {}", "flag"),
    ("", "while (*static_cast<volatile int*>(x) == 0) {}", "static_cast<volatile int*>(x)"),
    ("typedef volatile int vint;", "vint* f = x; while (*f == 0) {}", "f"),          # types behind aliases
    ("using vptr = volatile int*;", "vptr f = x; while (*f == 0) {}", "f"),
    ("using Flag = cuda::atomic<int>;", "Flag* f = (Flag*)x; while (f->load() == 0) {}", "f"),
    ("struct Q { cuda::atomic<int> ready; };", "Q* q = (Q*)x; while (q->ready.load() == 0) {}", "ready"),
    # a second review's: one name defined twice, one of them reaching the read through a cycle of calls
    ("__device__ int f(const int* p) { return *(const volatile int*)p; }\n__device__ int g(const int* p);\n"
     "__device__ int f(const int* p, int k) { return g(p) + k; }\n__device__ int g(const int* p) { return f(p); }\n"
     "__device__ int h(const int* p) { return f(p, 1); }\n"
     "__global__ void other(int* x) { while (h(x) == 0) {} }", "while (g(x) == 0) {}", "(const volatile int*)p"),
    # progress made only when a flag is set: under an if on it, or after a continue under one; an L2 load
    ("", "int i = 0; while (i < n) { if (atomicAdd(x, 0)) ++i; }", "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < n) { if (atomicAdd(x, 0) == 0) continue; x[i] = 1; ++i; }", "atomicAdd(x, 0)"),
    ("", "while (true) { if (atomicAdd(x, 0) == 0) continue; break; }", "atomicAdd(x, 0)"),
    ("", "int i = 0; do { switch (x[1]) { case 0: if (atomicOr(x, 0) == 0) continue; } ++i; } while (i < n);",
     "atomicOr(x, 0)"),
    ("", "while (__ldcg(x) == 0) {}", "__ldcg(x)"),
    # reviews of this session's: progress under a switch, a short-circuit or a variable set from a read; a
    # counter whose value an inner loop's read decides (a bounded spin retried); a bound beside the read
    ("", "int i = 0; while (i < n) { switch (atomicAdd(x, 0)) { case 0: continue; default: break; } ++i; }",
     "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < n) { switch (atomicAdd(x, 0)) { case 1: ++i; } }", "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < n) { int f = atomicAdd(x, 0); if (f) ++i; }", "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < n) { atomicAdd(x, 0) && ++i; }", "atomicAdd(x, 0)"),
    ("", "int k; for (;;) { for (k = 0; k < 1000; ++k) if (*(volatile int*)x) break; if (k < 1000) break; }",
     "(volatile int*)x"),
    ("", "bool done = false; while (!done) { int k = 0; for (; k < 100; ++k) { if (atomicAdd(x, 0)) break; } "
         "done = k < 100; }", "atomicAdd(x, 0)"),
    ("", "volatile int* found = x; for (int i = 0; i < n && !*found; ++i) x[i + 1] = i;", "found"),
    ("", "const cuda::atomic_flag* f = (const cuda::atomic_flag*)x; while (!f->test()) {}", "f"),
    # a third review's: a member, an element or a parenthesised counter stepped under a read; a condition the loop
    # cannot change (it ends by its break); plain loads in a loop that fences memory; a for's update that steps
    # nothing its condition reads
    ("struct S { int i; };", "S s{0}; while (s.i < n) { if (*(volatile int*)x) s.i++; }", "(volatile int*)x"),
    ("", "int c[2] = {0, 0}; while (c[0] < n) { if (atomicAdd(x, 0)) c[0]++; }", "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < n) { if (atomicAdd(x, 0)) (i)++; }", "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < n) { if (*(volatile int*)x) break; }", "(volatile int*)x"),
    ("", "while (x[0] == 0) __threadfence();", "x[0]"),
    ("", "int v; do { v = x[1]; __threadfence_system(); } while (v == 0);", "x[1]"),
    ("", "for (int done = 0, tries = 0; done < n; ++tries) { if (!atomicAdd(x, 0)) continue; ++done; }",
     "atomicAdd(x, 0)"),
    # a condition the loop changes out of sight: through a reference, a macro, a pointer
    ("__device__ void advance(int* x, int& i) { if (atomicAdd(x, 0)) ++i; }", "int i = 0; while (i < n) advance(x, i);",
     "atomicAdd(x, 0)"),
    ("#define STEP(v) ++v", "int i = 0; while (i < n) { if (*(volatile int*)x) STEP(i); }", "(volatile int*)x"),
    ("", "int i = 0; int* p = &i; while (i < n) { if (atomicOr(x, 0)) (*p)++; }", "atomicOr(x, 0)"),
    # a loop made of a goto back: taken under a read, directly or through a variable, or left only under one
    ("", "again: if (atomicAdd(x, 0) == 0) goto again; x[1] = n;", "atomicAdd(x, 0)"),
    ("", "int v; retry: v = atomicAdd(x, 0); if (v == 0) goto retry;", "atomicAdd(x, 0)"),
    ("", "int i = 0; top: if (*(volatile int*)x) return; ++i; goto top;", "(volatile int*)x"),
    # a lambda of the child, defined before the loop: a predicate, or a step made under a read
    ("", "auto ready = [&] { return atomicAdd(x, 0) != 0; }; while (!ready()) {}", "atomicAdd(x, 0)"),
    ("", "int i = 0; auto step = [&] { if (*(volatile int*)x) ++i; }; while (i < n) step();", "(volatile int*)x"),
    # a fourth review's: a flag a call sets out of sight, tested by a break or a goto; a bound of a member or a
    # cast; a label of a lambda; a lambda shadowing another of the same name
    ("__device__ void poll(int* x, int& f) { f = *(volatile int*)x; }",
     "int f = 0; for (;;) { poll(x, f); if (f) break; }", "(volatile int*)x"),
    ("__device__ void poll(int* x, int& f) { f = atomicAdd(x, 0); }", "int f = 0; L: poll(x, f); if (!f) goto L;",
     "atomicAdd(x, 0)"),
    ("", "int i = 0; while (i < blockDim.x) { if (atomicAdd(x, 0)) break; }", "atomicAdd(x, 0)"),
    ("", "auto a = [&] { retry: if (!atomicAdd(x, 0)) goto retry; }; a(); retry: x[1] = 1;", "atomicAdd(x, 0)"),
    ("", "auto g = [&] { return 1; }; { auto g = [&] { return atomicAdd(x, 0); }; while (!g()) {} }",
     "atomicAdd(x, 0)"),
])
def test_a_child_that_waits_for_another_thread_is_not_serialised_or_coarsened(before, body, read):
    """Run one thread after another, a thread that waits for a later one waits forever (PDCC526); its blocks
    coarsened, an original block may wait for one its coarse block runs after it. Aggregation keeps every thread."""
    parent = PARENT.replace("threshold(16)", "threshold(16) coarsen(4) consldt(block)")
    result = run(f"{before}\n__global__ void child(int* x, int n) {{ {body} }}\n", parent)
    decided = [(r.rule.id, r.kind.value) for r in result.remarks if r.kind.value != "analysis"]
    assert decided == [("PDCC526", "missed"), ("PDCC526", "missed"), ("PDCC560", "applied")]
    assert f"its way out reads '{read}'" in result.remarks[0].message and "__pdcc_serial" not in result.text
    assert "pdcc::Retry()" in result.text   # a failed aggregated launch is retried, never run in the parent


def test_a_command_line_macro_that_reads_volatile_memory_is_a_wait():
    text = "__global__ void child(int* x, int n) { while (PEEK(x) == 0) {} }\n" + PARENT
    result = transform(SourceFile("t.cu", text.encode()), defines={"PEEK(p)": "(*(volatile int*)(p))"})
    assert [r.rule.id for r in result.remarks if r.kind.value == "missed"] == ["PDCC526"]


def test_a_waiting_child_aggregated_compiles(tmp_path):
    parent = PARENT.replace("threshold(16)", "threshold(16) coarsen(4) consldt(block)")
    result = run("__global__ void child(int* x, int n) { while (*(volatile int*)x == 0) {} x[1] = n; }\n", parent)
    assert "PDCC560" in [r.rule.id for r in result.remarks]
    assert_compiles(result.text, tmp_path)


@pytest.mark.parametrize("before, body", [
    ("__device__ int load_relaxed(const int* p) { return *(const volatile int*)p; }",
     "for (int i = 0; i < n; ++i) if (load_relaxed(&x[i]) > n) atomicMin(&x[i], n);"),    # read in the body only
    ("", "int i; while ((i = atomicAdd(x, 1)) < n) x[i + 1] = i;"),                        # taking work
    ("", "int old = x[0], assumed; do { assumed = old; old = atomicCAS(x, assumed, assumed + n); } "
         "while (assumed != old);"),                                                     # an atomic update
    ("", "while (atomicCAS(x, 0, 1) != 0) {} x[1] += n; atomicExch(x, 0);"),             # a lock
    ("", "volatile float p = n * 2.0f; for (int i = 0; i < (int)p; ++i) x[i] = i;"),     # a volatile local
    ("", "for (int i = 0; i < n; ++i) { if (atomicAdd(&x[i], 0) > n) x[0] = i; }"),      # no way out through it
    # a review's: a loop a bound ends anyway, a break of an inner loop or switch, a return in a lambda,
    # another declarator of a volatile declaration, taking work from an atomic object
    ("", "volatile int* found = x; for (int i = 0; i < n; ++i) { if (*found) return; x[i + 1] = i; }"),
    ("", "for (;;) { for (int i = 0; i < n; ++i) if (atomicAdd(&x[i], 0) > 0) break; "
         "switch (atomicOr(x, 0)) { case 1: break; } if (x[1]++ > n) break; }"),
    ("", "while (true) { auto f = [&]() { if (atomicAdd(x, 0) == 0) return; x[2] = 1; }; f(); if (--n < 0) break; }"),
    ("", "volatile int* out = x; int count = n; for (int i = 0; i < count; ++i) out[i] = i;"),
    ("", "cuda::atomic_ref<int, cuda::thread_scope_device> next(x[0]); int i; while ((i = next.fetch_add(1)) < n) "
         "x[i + 1] = i;"),
    ("struct Q { cuda::atomic<int> next; };", "Q* q = (Q*)x; int i; while ((i = q->next.fetch_add(1)) < n) x[i] = i;"),
    ("typedef int count_t; typedef int* ptr_t;", "ptr_t p = x; for (count_t i = 0; i < n; ++i) p[i] = i;"),
    # a continue under a read that skips no progress: a for's update runs all the same; the continue of an
    # inner loop
    ("", "for (int i = 0; i < n; ++i) { if (atomicAdd(x, 0) == 0) continue; x[i + 1] = 1; }"),
    ("", "int i = 0; while (i < n) { for (int k = 0; k < 4; ++k) { if (atomicAdd(x, 0) == 0) continue; x[k]++; } "
         "++i; }"),
    ("", "int i = 0; while (i < n) { for (auto v : {1, 2}) { if (atomicAdd(x, 0) == v) continue; x[v]++; } ++i; }"),
    # a loop that runs once; a bounded loop that fences; a list walked by a pointer whose members it sets
    ("", "do { if (atomicAdd(x, 0)) break; x[1] = 1; } while (0);"),
    ("", "for (int i = 0; i < n; ++i) { x[i + 1] = i; __threadfence(); }"),
    ("", "int v = n; while (v > 0) { int p = x[v]; atomicAdd(&x[p], 1); __threadfence(); v = p; }"),   # ordering
    ("__device__ void step(int* x, int& i) { x[i] += 1; ++i; }", "int i = 0; while (i < n) step(x, i);"),
    ("", "int k = 0; again: x[k + 1] = k; if (++k < n) goto again;"),                    # a counted goto loop
    ("", "if (atomicAdd(x, 0)) goto done; x[1] = 1; done: x[2] = 3;"),                   # a goto forward
    ("", "int i = 0; auto step = [&] { x[i + 1] = 1; ++i; }; while (i < n) step();"),     # a lambda's step
    # a goto loop taken always, whose reads leave only an inner switch or a lambda
    ("", "int i = 0; L: if (i >= n) return; switch (atomicAdd(x, 0)) { case 0: break; default: x[1] = 1; } ++i; "
         "goto L;"),
    ("", "int i = 0; L: if (i >= n) return; [&] { if (atomicAdd(x, 0)) return; x[1] = 1; }(); ++i; goto L;"),
    ("struct Item { int flag, value; Item* next; };", "for (Item* p = (Item*)x; p != nullptr; p = p->next) "
     "{ if (atomicAdd(&p->flag, 0)) p->value = n; }"),
    ("__device__ int next_item(int* q) { cuda::atomic_ref<int, cuda::thread_scope_device> r(*q); "
     "return r.fetch_add(1); }", "int i; while ((i = next_item(x)) < n) x[i + 1] = i;"),    # a declared name
])
def test_a_child_that_only_reads_shared_memory_or_makes_progress_is_serialised(before, body):
    result = run(f"{before}\n__global__ void child(int* x, int n) {{ {body} }}\n")
    assert [r.rule.id for r in result.remarks if r.kind.value != "analysis"] == ["PDCC500"]


PARTS = """
struct Tile { int v; __device__ Tile() : v(0) { __syncthreads(); } };
struct Guard { __device__ ~ Guard() { __syncthreads(); } };
struct Holder { int k; Tile t; };
struct Derived : public Tile { int k; };
namespace ns { template <int N> struct Outer { Holder h[N]; }; }
struct Keeper { Guard g; };
struct Safe { Tile* p; Tile& r; static Tile s; __device__ Tile make(); int k; };
"""


@pytest.mark.parametrize("body, found", [
    ("Holder h; x[0] = h.k;", "(in 'Tile', which it calls)"),          # a member's constructor
    ("Derived d; x[0] = d.k;", "(in 'Tile', which it calls)"),         # a base's
    ("ns::Outer<2> o; x[0] = 1;", "(in 'Tile', which it calls)"),      # through a member of a member, an array
    ("Holder* h = new Holder; x[0] = h->k;", "(in 'Tile', which it calls)"),
    ("{ Keeper k; x[0] = 1; }", "(in '~Guard', which it calls)"),      # a member's destructor
    ("Safe s; x[0] = s.k;", None),                                     # pointers, references, statics, methods
])
def test_classes_an_object_builds_implicitly_are_searched(body, found):
    result = run(PARTS + f"__global__ void child(int* x, int n) {{ {body} }}\n")
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    if found is None:
        assert not missed and "__pdcc_serial" in result.text
    else:
        assert [r.rule.id for r in missed] == ["PDCC510"] and found in missed[0].message


BUILT = "struct Tile { __device__ Tile() { __syncthreads(); } };\ntemplate <class T> struct Box { T v; };\n"


@pytest.mark.parametrize("classes, made, rule, found", [
    # what a constructor runs besides its body: members' default values, its initialiser list
    ("struct H { int tid = threadIdx.x; };", "H h; x[h.tid] = 1;", "PDCC518", "member initialiser of 'H'"),
    ("__device__ int f() { __syncthreads(); return 1; } struct H { int k{f()}; };", "H h; x[h.k] = 1;", "PDCC510",
     "(in 'f', which it calls)"),
    ("struct P { int tid = threadIdx.x; }; struct H { P p; };", "H h; x[0] = 1;", "PDCC518",
     "member initialiser of 'P'"),
    ("struct H { int v; __device__ H() : v(threadIdx.x) {} };", "H h; x[h.v] = 1;", "PDCC518", "(in 'H', which"),
    # classes named by template arguments, aliases, unnamed structs, CUDA's alignment
    ("struct H { int k; Box<Tile> b; };", "H h; x[0] = h.k;", "PDCC510", "(in 'Tile'"),
    ("", "Box<Tile> b; x[0] = 1;", "PDCC510", "(in 'Tile'"),
    ("template <class B> struct D : B {};", "D<Tile> d; x[0] = 1;", "PDCC510", "(in 'Tile'"),
    ("using H = Box<Tile>;", "H h; x[0] = 1;", "PDCC510", "(in 'Tile'"),
    ("typedef struct { int k; Tile t; } H;", "H h; x[0] = h.k;", "PDCC510", "(in 'Tile'"),
    ("typedef Tile TileT; struct H { int k; TileT t; };", "H h; x[0] = h.k;", "PDCC510", "(in 'Tile'"),
    ("struct H { int k; struct { Tile t; } in; };", "H h; x[0] = h.k;", "PDCC510", "(in 'Tile'"),
    ("struct __align__(16) H { int k; Tile t; };", "H h; x[0] = h.k;", "PDCC510", "(in 'Tile'"),
    ("struct __align__(sizeof(float4)) H { int tid = threadIdx.x; };", "H h; x[h.tid] = 1;", "PDCC518", "'H'"),
    ("struct __builtin_align__(16) H { int tid = threadIdx.x; };", "H h; x[h.tid] = 1;", "PDCC518", "'H'"),
    ("#define ALIGN(n) __align__(n)\nstruct ALIGN(16) H { int tid = threadIdx.x; };", "H h; x[h.tid] = 1;", "PDCC518",
     "'H'"),                                                          # a macro of the file for __align__
    ("int k = 1'000; struct __align__(8) H { int tid = threadIdx.x; int b = 2'000; };", "H h; x[h.tid] = 1;",
     "PDCC518", "'H'"),
    ("typedef struct Foo { int v; __device__ Foo() { __syncthreads(); } } H;", "H h; x[0] = h.v;", "PDCC510",
     "(in 'Foo', which it calls)"),
    ("union U { int a; __device__ U() { __syncthreads(); } }; struct H { int k; union U u; };", "H h; x[0] = h.k;",
     "PDCC510", "(in 'U'"),
    # not built: a host-only constructor (device code cannot call it), a pointer or reference to an array
    ("__global__ void fill(int* p) { *p = 0; }\n"
     "struct A { int* p; __host__ A(int m) { fill<<<1, 1>>>(p); } __host__ __device__ A() : p(0) {} };\n"
     "struct H { A a; int k; };", "H h; x[0] = h.k;", None, None),
    ("struct H { int k; Tile (&ra)[4]; Tile* pa[2]; };", "H& h = *(H*)x; x[0] = h.k;", None, None),
    ("struct H { int k = 3; float f; };", "H h; x[0] = h.k;", None, None),
])
def test_what_building_an_object_runs_is_searched(classes, made, rule, found):
    result = run(BUILT + classes + f"\n__global__ void child(int* x, int n) {{ {made} }}\n")
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    if rule is None:
        assert not missed and "__pdcc_serial" in result.text
    else:
        assert [r.rule.id for r in missed] == [rule] and found in missed[0].message


@pytest.mark.parametrize("macros, body, rule, words", [
    ("#define SYNC() __syncthreads()", "x[0] = 1; SYNC();", "PDCC510", "'__syncthreads' through macro 'SYNC'"),
    ("#define SYNC0 __syncthreads\n#define SYNC() SYNC0()", "SYNC();", "PDCC510", "through macro 'SYNC'"),
    ("#define BACKOFF() __nanosleep(32)", "BACKOFF();", "PDCC525", "'__nanosleep' through macro 'BACKOFF'"),
    ("#define SHFL(v) __shfl_down_sync(~0u, v, 1)", "x[0] = SHFL(x[1]);", "PDCC512", "through macro 'SHFL'"),
    ("#define TID threadIdx.x\n#define IDX (TID + 1)\n__device__ int f() { return IDX; }", "x[f()] = 1;", "PDCC518",
     "through macro 'IDX' (in 'f', which it calls)"),
    ("#define N 32\n#define SQ(v) ((v) * (v))", "x[0] = SQ(N);", None, None),
    ("#define SCALE(n, thread_block) ((n) * (thread_block))", "x[0] = SCALE(n, 2);", None, None),   # a parameter
    ('#define MSG "needs __syncthreads first"', "printf(MSG);", None, None),                         # a string
    ("#ifndef SYNCED\n#define SYNC()\n#else\n#define SYNC() __syncthreads()\n#endif", "SYNC();", "PDCC510",
     "through macro 'SYNC'"),                                                                         # either one
    ("#define ALIGN(n) __align__(n)\n__device__ void helper(int* x) { __syncthreads(); }", "helper(x);", "PDCC510",
     "(in 'helper', which it calls)"),   # the masked __align__ leaves the define's line alone
    ("", 'printf("__align__("); __syncthreads();', "PDCC510", "'__syncthreads' at line"),   # and strings
    ("__device__ int lane_sum(int v) { return __shfl_down_sync(~0u, v, 1); }\n#define SUM(v) lane_sum(v)",
     "x[0] = SUM(n);", "PDCC512", "(in 'lane_sum', which it calls)"),   # a macro's call of a function
    ("#define B A\n#define A B __syncthreads()", "B;", "PDCC510", "through macro 'B'"),     # a cycle, either order
    ("#define A B __syncthreads()\n#define B A", "B;", "PDCC510", "through macro 'B'"),
    ("__device__ void f(int* a, int b) { __syncthreads(); }\n#define f(a) f(a, 0)\n#define G(a) f(a)", "G(x);",
     "PDCC510", "(in 'f', which it calls)"),          # the function a self-referring macro leaves in place
    ("struct T { int v; __device__ T(int n) : v(n) {} __device__ ~T() { __syncthreads(); } };\n#define MK(v) T(v)",
     "x[0] = MK(n).v;", "PDCC510", "(in '~T', which it calls)"),   # a class a macro names: its destructor too
    ("#define IDX (1'000 * blockIdx.x + 2'000)", "x[IDX] = 1;", "PDCC518", "through macro 'IDX'"),  # separators
])
def test_a_macro_that_stands_for_an_obstacle_is_one(macros, body, rule, words):
    result = run(macros + f"\n__global__ void child(int* x, int n) {{ {body} }}\n")
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ([rule] if rule else [])
    assert rule is None or words in missed[0].message


@pytest.mark.parametrize("defines, body, rule, words", [
    ({"SYNC()": "__syncthreads()"}, "SYNC(); x[0] = n;", "PDCC510", "through macro 'SYNC'"),   # -D'SYNC()=...'
    ({"TID": "(blockIdx.x * blockDim.x + threadIdx.x)"}, "x[TID] = n;", "PDCC518", "through macro 'TID'"),
    ({"WAIT": "WAIT2", "WAIT2": "__nanosleep(100)"}, "WAIT; x[0] = n;", "PDCC525", "through macro 'WAIT'"),
    ({"N": "32"}, "x[N] = n;", None, None),
])
def test_a_macro_of_the_command_line_counts_as_one_of_the_file(defines, body, rule, words):
    """`pdcc -D'SYNC()=__syncthreads()'`: the preprocessor defines it before the file, so the child calls it."""
    text = f"__global__ void child(int* x, int n) {{ {body} }}\n" + PARENT
    result = transform(SourceFile("t.cu", text.encode()), defines=defines)
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ([rule] if rule else [])
    assert rule is None or words in missed[0].message


def test_an_alignment_macro_of_the_command_line_is_masked_from_the_parser(tmp_path):
    """`-D'ALIGN(n)=__align__(n)'`: `struct ALIGN(16) H` would read as a function H, hiding its member's index,
    in the file and in its headers."""
    (tmp_path / "h.cuh").write_text("struct ALIGN(16) G { int tid = threadIdx.x; };\n")
    for body, found in (("H h; x[h.tid] = 1;", "of 'H'"), ("G g; x[g.tid] = 1;", "h.cuh:1")):
        (tmp_path / "t.cu").write_text('#include "h.cuh"\nstruct ALIGN(16) H { int tid = threadIdx.x; };\n'
                                       f"__global__ void child(int* x, int n) {{ {body} }}\n" + PARENT)
        result = transform_path(str(tmp_path / "t.cu"), defines={"ALIGN(n)": " __align__(n)"})
        missed = [r for r in result.remarks if r.kind.value == "missed"]
        assert [r.rule.id for r in missed] == ["PDCC518"] and found in missed[0].message, missed


def test_an_alignment_macro_of_a_header_is_masked_from_the_parser(tmp_path):
    """`#define ALIGN(n) __align__(n)` in a header: the file's `struct ALIGN(16) H` and another header's
    `struct ALIGN(16) G` are read as structs too."""
    (tmp_path / "config.cuh").write_text("#pragma once\n#define ALIGN(n) __align__(n)\n")
    (tmp_path / "g.cuh").write_text('#include "config.cuh"\nstruct ALIGN(16) G { int tid = threadIdx.x; };\n')
    for body, found in (("H h; x[h.tid] = 1;", "of 'H'"), ("G g; x[g.tid] = 1;", "g.cuh:2")):
        (tmp_path / "t.cu").write_text('#include "g.cuh"\nstruct ALIGN(16) H { int tid = threadIdx.x; };\n'
                                       f"__global__ void child(int* x, int n) {{ {body} }}\n" + PARENT)
        missed = [r for r in transform_path(str(tmp_path / "t.cu")).remarks if r.kind.value == "missed"]
        assert [r.rule.id for r in missed] == ["PDCC518"] and found in missed[0].message, missed


def test_alignment_macros_reach_headers_and_only_where_in_effect(tmp_path):
    """A second review's: a header sees the file's own macro; a header's macro in `#if 0` is none, and a
    function-like one stands for the marker only with its arguments (`int ALIGN = 16;` is a variable). One a
    header `#undef`s at its end is none in the file (unless a later header defines it again)."""
    tile = "struct Tile { int v; __device__ Tile() { __syncthreads(); } };\n"
    (tmp_path / "types.cuh").write_text(tile + "struct ALIGN(16) H { int k; Tile t; };\n")
    (tmp_path / "skip.cuh").write_text("#pragma once\n#if 0\n#define ALIGN(n) __align__(n)\n#endif\n")
    (tmp_path / "live.cuh").write_text("#pragma once\n#define ALIGN(n) __align__(n)\n")
    (tmp_path / "done.cuh").write_text("#pragma once\n#define ALIGN(n) __align__(n)\nstruct ALIGN(8) P { int a; };\n"
                                       "#undef ALIGN\n")
    rounded = "__device__ int ALIGN(int v) { return (v + 31) & ~31; }\n"
    cases = [('#define ALIGN(n) __align__(n)\n#include "types.cuh"\n', "H h; x[0] = h.k;", "PDCC510",
              PARENT),
             ('#include "skip.cuh"\n__device__ int ALIGN(int v) { return (v + 31) & ~31; }\n', "x[0] = n;",
              None, PARENT.replace("(n + 31) / 32", "ALIGN(n) / 32")),
             ('#include "live.cuh"\n', "int ALIGN = 16; __syncthreads(); x[0] = n * ALIGN;", "PDCC510", PARENT),
             ('#include "done.cuh"\n' + rounded, "x[0] = n;", None, PARENT.replace("(n + 31) / 32", "ALIGN(n) / 32")),
             ('#include "done.cuh"\n#include "live.cuh"\n' + tile + "struct ALIGN(16) H { int k; Tile t; };\n",
              "H h; x[0] = h.k;", "PDCC510", PARENT)]
    for head, body, rule, parent in cases:
        (tmp_path / "t.cu").write_text(head + f"__global__ void child(int* x, int n) {{ {body} }}\n" + parent)
        result = transform_path(str(tmp_path / "t.cu"))
        remarks = result.remarks
        assert [r.rule.id for r in remarks if r.kind.value != "analysis"] == [rule or "PDCC500"], (head, remarks)
        if head.startswith('#include "done.cuh"\n__device__'):
            assert_compiles(result.text, tmp_path, "transformed.cu")   # (the name ALIGN a function again)


def test_a_command_line_macro_of_bytes_that_are_not_utf8_is_read():
    text = "__global__ void child(int* x, int n) { x[0] = n; }\n" + PARENT
    result = transform(SourceFile("t.cu", text.encode()), defines={"X": "\udcff", "ALIGN(n)": "\udcff"})
    assert "PDCC500" in [r.rule.id for r in result.remarks]


def test_a_device_qualifier_macro_of_the_command_line_marks_a_prototype_of_another_unit():
    text = "DEV void settle(int* x);\n__global__ void child(int* x, int n) { settle(x); }\n" + PARENT
    result = transform(SourceFile("t.cu", text.encode()), defines={"DEV": "__device__"})
    assert [r.rule.id for r in result.remarks if r.kind.value == "missed"] == ["PDCC524"]


def test_a_macro_that_reads_an_index_and_synchronises_is_not_coarsened():
    """Every word a macro stands for counts, not only its first: coarsening accepts a barrier but not the index."""
    result = run("#define STORE_SYNC(a, v) do { __syncthreads(); a[blockIdx.x] = v; } while (0)\n"
                 "__global__ void child(int* x, int n) { STORE_SYNC(x, n); }\n", PARENT.replace("threshold(16)",
                                                                                                  "coarsen(4)"))
    assert [r.rule.id for r in result.remarks if r.kind.value == "missed"] == ["PDCC518"]


def test_a_host_definition_does_not_hide_a_device_prototype_of_another_translation_unit():
    result = run("__host__ void f(int* x) {}\n__device__ void f(int* x, int n);\n"
                 "__global__ void child(int* x, int n) { f(x, n); }\n")
    assert [r.rule.id for r in result.remarks if r.kind.value == "missed"] == ["PDCC524"]


def test_a_chain_of_thousands_of_macros_is_followed_without_recursion():
    chain = "".join(f"#define M{i}() M{i - 1}()\n" for i in range(4000, 0, -1)) + "#define M0() __syncthreads()\n"
    result = run(chain + "__global__ void child(int* x, int n) { M4000(); }\n")
    assert [r.rule.id for r in result.remarks if r.kind.value == "missed"] == ["PDCC510"]


def test_obstacle_in_a_called_device_function_is_found():
    result = run("__device__ void helper() { __syncthreads(); }\n"
                 "__global__ void child(int* x, int n) { helper(); }\n")
    assert "(in 'helper', which it calls)" in result.remarks[0].message


SYNCING_TYPES = """
struct Sync { __device__ void operator ()(int* p) const { __syncthreads(); p[0] = 1; } };
struct Tile { int v; __device__ Tile(int x) : v(x) { __syncthreads(); } };
struct Guard { __device__ ~ Guard() { __syncthreads(); } };
namespace ns { template <int N> struct Box { __device__ Box() { __syncthreads(); } }; }
__device__ void helper() { __syncthreads(); }
"""


@pytest.mark.parametrize("body, found", [
    ("Sync s; s(x);", "(in 'operator()', which it calls)"),            # a function object
    ("Tile t(n); x[0] = t.v;", "(in 'Tile', which it calls)"),          # a constructor
    ("Tile t{n}; x[0] = t.v;", "(in 'Tile', which it calls)"),
    ("struct Tile t[2] = {1, 2}; x[0] = t[0].v;", "(in 'Tile', which it calls)"),
    ("ns::Box<4> b; x[0] = 1;", "(in 'Box', which it calls)"),
    ("Tile t = Tile(n); x[0] = t.v;", "(in 'Tile', which it calls)"),   # a temporary: a call of `Tile`
    ("auto t = Tile{n}; x[0] = t.v;", "(in 'Tile', which it calls)"),   # a temporary in braces
    ("{ Guard{}; x[0] = 1; }", "(in '~Guard', which it calls)"),
    ("Guard* g = (Guard*)x; delete g;", "(in '~Guard', which it calls)"),   # delete: the destructor only
    ("Tile* t = new Tile(n); x[0] = t->v;", "(in 'Tile', which it calls)"),
    ("{ Guard g; x[0] = 1; }", "(in '~Guard', which it calls)"),        # a destructor
    ("Guard(); x[0] = 1;", "(in '~Guard', which it calls)"),
    ("for (Guard g : (Guard*)nullptr) x[0] = 1;", "(in '~Guard', which it calls)"),
    ("{ int helper = 3; x[0] = helper; } helper();", "(in 'helper', which it calls)"),  # a name both
])
def test_a_barrier_in_a_function_object_constructor_or_destructor_keeps_the_child_from_running_serially(body, found):
    result = run(SYNCING_TYPES + f"__global__ void child(int* x, int n) {{ {body} }}\n")
    assert [r.rule.id for r in result.remarks if r.kind.value == "missed"] == ["PDCC510"]
    assert found in result.remarks[0].message and "__pdcc_serial" not in result.text


def test_a_pointer_to_an_object_a_lambda_or_a_call_of_a_library_function_runs_nothing_of_its_class():
    result = run(SYNCING_TYPES + "__global__ void child(int* x, int n) { Tile* t = nullptr; const Tile& r = *t; "
                 "auto add = [](int* p, int v) { atomicAdd(p, v); }; add(x, n); }\n")
    assert not [r for r in result.remarks if r.kind.value == "missed"] and "child__pdcc_serial" in result.text


def test_child_defined_elsewhere_or_overloaded():
    assert run("__global__ void child(int* x, int n);\n").remarks[0].rule.id == "PDCC515"
    overloaded = run("__global__ void child(int* x, int n) {}\n__global__ void child(float* x, int n) {}\n")
    assert "2 definitions" in overloaded.remarks[0].message


def test_unnamed_and_defaulted_parameters_are_forwarded():
    result = run("__global__ void child(int* x, int, int n = 4) { x[threadIdx.x] = n; }\n",
                 PARENT)
    assert [r.rule.id for r in result.remarks] == ["PDCC500", "PDCC501", "PDCC530"]
    assert "int pdcc_param1" in result.text


def test_variadic_template_child():
    child = ("template <typename... Ts>\n__global__ void child(int* x, Ts... rest) { x[threadIdx.x] = sizeof...(rest); }\n")
    result = run(child, PARENT.replace("(x, n);", "(x, n, 1.0f);"))
    assert "child__pdcc_thread<Ts...>(" in result.text and "rest...);" in result.text


def test_two_sites_in_one_parent_share_one_serial_version():
    child = "__global__ void child(int* x, int n) { x[threadIdx.x] = n; }\n"
    parent = PARENT.replace("}\n", "#pragma dp threshold(8)\n  child<<<(n + 63) / 64, 64>>>(x + 1, n);\n}\n", 1)
    result = run(child, parent)
    assert result.text.count("static __device__ __noinline__ void child__pdcc_serial(") == 1
    assert "PDCC_THRESHOLD_parent_0 16" in result.text and "PDCC_THRESHOLD_parent_1 8" in result.text
    warning = [r for r in result.remarks if r.rule.id == "PDCC520"]
    assert len(warning) == 1 and warning[0].site == "parent_1" and "the launch at line 5" in warning[0].message


@pytest.mark.nvcc
@pytest.mark.parametrize("child, parent", [
    ("__global__ void child(int* x, int, int n = 4) { x[threadIdx.x] = n; }\n", PARENT),
    ("template <typename... Ts>\n__global__ void child(int* x, Ts... rest) { x[threadIdx.x] = sizeof...(rest); }\n",
     PARENT.replace("(x, n);", "(x, n, 1.0f);")),
    ("template <typename T, int Scale>\n__global__ void child(T* x, int n, T a = T(Scale)) { x[threadIdx.x] = a; }\n",
     PARENT.replace("int* x", "float* x").replace("child<<<", "child<float, 3><<<")),
    ("template <typename T, T Init>\n__global__ void child(T* x, int n, T v = T(Init)) { x[threadIdx.x] = v; }\n",
     PARENT.replace("child<<<", "child<int, 5><<<")),
], ids=["unnamed-and-default", "variadic-template", "default-from-template-parameters", "typed-non-type-parameter"])
def test_unusual_signatures_compile(child: str, parent: str, tmp_path):
    assert_compiles(run(child, parent).text, tmp_path)


def test_a_default_naming_a_non_type_parameter_of_a_template_type_gets_its_value():
    child = "template <typename T, T Init>\n__global__ void child(T* x, int n, T v = T(Init)) { x[threadIdx.x] = v; }\n"
    result = run(child, PARENT.replace("child<<<", "child<int, 5><<<"))
    assert "child__pdcc_serial<int, 5>(pdcc_grid, pdcc_block, x, n, int(5));" in result.text


def test_a_launch_into_a_named_stream_is_not_thresholded():
    child = "__global__ void child(int* x, int n) { x[threadIdx.x] = n; }\n"
    result = run(child, PARENT.replace("child<<<(n + 31) / 32, 32>>>", "child<<<(n + 31) / 32, 32, 0, cudaStreamTailLaunch>>>"))
    assert result.remarks[0].rule.id == "PDCC519" and "cudaStreamTailLaunch" in result.remarks[0].message
    assert "__pdcc_serial" not in result.text


@pytest.mark.parametrize("helper, words", [
    ("__device__ int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }\n", "(in 'gid', which it calls)"),
    ("#define GID (blockIdx.x * blockDim.x + threadIdx.x)\n", "macro 'GID'"),
])
def test_indices_read_through_a_helper_or_macro_stop_the_pass(helper: str, words: str):
    call = "gid()" if "gid()" in helper else "GID"
    result = run(helper + f"__global__ void child(int* x, int n) {{ int i = {call}; if (i < n) x[i] = 1; }}\n")
    assert [r.rule.id for r in result.remarks] == ["PDCC518"] and words in result.remarks[0].message


PLAIN_CHILD = "__global__ void child(int* x, int n) { x[threadIdx.x] = n; }\n"


def looped(clauses: str) -> str:
    return PARENT.replace("#pragma dp threshold(16)\n  child<<<(n + 31) / 32, 32>>>(x, n);\n",
                          f"for (int k = 0; k < n; ++k) {{\n#pragma dp {clauses}\n  child<<<(n + 31) / 32, 32>>>(x, n);\n}}\n")


def test_the_serial_version_is_never_inlined():
    # Inlined into a parent loop beside device launches, it hung the grid on an H200 (tests/cuda/shapes.cu).
    assert "static __device__ __noinline__ void child__pdcc_serial(" in run(PLAIN_CHILD, looped("threshold(16)")).text


def test_an_aggregated_launch_in_a_loop_launches_what_does_not_fit_directly():
    result = run(PLAIN_CHILD, looped("consldt(block)"))
    site = result.text[result.text.index("if (!pdcc_group_parent_0.append(pdcc_rec))"):]
    assert site.splitlines()[1].strip() == "pdcc::launch_record(pdcc_rec, child__pdcc_counted, child__pdcc_serial, x, n);"
    storage = next(r for r in result.remarks if r.rule.id == "PDCC561")
    assert "4, the launch is in a loop" in storage.message and "launches directly" in storage.message


@pytest.mark.parametrize("between, read", [
    ("", True), ("n = n / 2;", False), ("blocks += 1;", False), ("resize(&n);", False), ("x[0] = n;", True)])
def test_a_grid_size_read_through_a_local_only_while_its_inputs_are_unchanged(between: str, read: bool):
    parent = f"""
__global__ void parent(int* x, int n) {{
  int blocks = (n + 127) / 128;
  {between}
#pragma dp threshold(16)
  child<<<blocks, 128>>>(x, n);
}}
"""
    result = run("__device__ void resize(int* n);\n__global__ void child(int* x, int n) { x[threadIdx.x] = n; }\n",
                 parent)
    count = next(r for r in result.remarks if r.rule.id == "PDCC501")
    assert ("(through 'blocks')" in count.message) is read, count.message


def test_a_child_whose_signature_is_split_by_ifdef_gets_its_own_reason():
    child = ("#ifdef USE_DOUBLE\n__global__ void child(double* x, int n)\n#else\n__global__ void child(int* x, int n)\n"
             "#endif\n{ x[threadIdx.x] = n; }\n")
    missed = next(r for r in run(child).remarks if r.kind.value == "missed")
    assert missed.rule.id == "PDCC515" and "split by #if/#ifdef branches" in missed.message


def test_a_prototype_in_an_include_guard_is_not_a_split_definition():
    child = "#ifndef GUARD\n#define GUARD\n__global__ void child(int* x, int n);\n#endif\n"
    missed = next(r for r in run(child).remarks if r.kind.value == "missed")
    assert "is not defined in this file" in missed.message


@pytest.mark.parametrize("before, after", [
    ("int& m = n;", "m = 1;"), ("int* p = &n;", "*p = 1;"), ("auto halve = [&] { n /= 2; };", "halve();")])
def test_an_alias_made_before_the_grid_size_keeps_it_from_being_read_through_the_local(before: str, after: str):
    parent = f"""
__global__ void parent(int* x, int n) {{
  {before}
  int blocks = (n + 127) / 128;
  {after}
#pragma dp threshold(16)
  child<<<blocks, 128>>>(x, n);
}}
"""
    count = next(r for r in run(PLAIN_CHILD, parent).remarks if r.rule.id == "PDCC501")
    assert "(through 'blocks')" not in count.message, count.message


def test_a_default_that_needs_template_arguments_the_launch_does_not_name_is_left_alone():
    child = "template <typename T>\n__global__ void child(T* x, int n, T a = T(1)) { x[threadIdx.x] = a; }\n"
    result = run(child)
    missed = next(r for r in result.remarks if r.kind.value == "missed")
    assert missed.rule.id == "PDCC517" and "depends on a template parameter" in missed.message
    assert "child<<<(n + 31) / 32, 32>>>(x, n);" in result.text


@pytest.mark.parametrize("clauses, passes", [
    ("threshold(16)", ["threshold"]), ("coarsen(2)", ["coarsen"]), ("consldt(block)", ["consldt"])])
@pytest.mark.parametrize("launch_in", ["child", "helper"])
def test_a_child_that_launches_kernels_itself_is_left_as_written(clauses: str, passes: list[str], launch_in: str):
    leaf = "__global__ void leaf(int* x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\n"
    helper = "__device__ void helper(int* x) { leaf<<<1, 32>>>(x); }\n"
    body = "helper(x);" if launch_in == "helper" else "leaf<<<1, 32>>>(x);"
    child = leaf + helper + f"__global__ void child(int* x, int n) {{ if (threadIdx.x == 0) {body} }}\n"
    result = run(child, PARENT.replace("threshold(16)", clauses))
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.pass_name for r in missed] == passes and {r.rule.id for r in missed} == {"PDCC522"}
    assert "launches 'leaf'" in missed[0].message and "child<<<(n + 31) / 32, 32>>>(x, n);" in result.text


# --- the serial version's trimmed loops (analysis/thread_guard.py) -----------------------------------------

def _serial_version(child: str) -> str:
    text = run(child).text
    start = text.index("__pdcc_serial(const dim3 pdcc_gridDim")
    return text[start:text.index("\n}\n", start)]


@pytest.mark.parametrize("child", [
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) {\n  // the global index\n  const unsigned i = threadIdx.x + blockDim.x * blockIdx.x;\n"
    "  if (n <= i) { return; }\n  x[i] = 1;\n}",
    "__global__ void child(int* x, const int n) { long long i = (long long)blockIdx.x * blockDim.x + (threadIdx.x);"
    " if ((i >= n)) return; x[i] = 1; }",
    "__global__ void child(int* x, unsigned int n) { size_t i = (blockIdx.x * blockDim.x) + threadIdx.x; if (i >= n) return; x[i] = 1; }",
])
def test_a_child_that_turns_away_the_threads_past_a_bound_gets_trimmed_serial_loops(child: str):
    serial = _serial_version(child)
    assert "pdcc_no_wrap" in serial and "pdcc_index >= n) break;" in serial and "pdcc_first >= n) break;" in serial


@pytest.mark.parametrize("child", [
    # something runs before the guard
    "__global__ void child(int* x, int n) { x[0] = 1; int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; }",
    # not the global x index
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.y; if (i >= n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) { int i = blockIdx.x * (blockDim.x + threadIdx.x); if (i >= n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x + 1; if (i >= n) return; x[i] = 1; }",
    # an index type that could wrap, or a narrowing cast
    "__global__ void child(int* x, int n) { short i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) { int i = (short)blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; x[i] = 1; }",
    # another test, an else, a return with work, a bound that is not an integer parameter taken by value
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i > n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; else x[i] = 1; }",
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) { x[0] = 2; return; } }",
    "__global__ void child(int* x, float n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) { int m = n; int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= m) return; }",
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x, j = x[0]; if (i >= n) return; }",
    # a cast in the comparison changes its types (n = -1 turns no thread away here)
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
    " if ((unsigned)i >= (unsigned)n) return; x[i] = 1; }",
    "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= (size_t)n) return; }",
])
def test_other_openings_keep_the_full_serial_loops(child: str):
    assert "pdcc_no_wrap" not in _serial_version(child)


_DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <vector>
std::vector<int> hits;
unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z;
unsigned cell(uint3 b, uint3 t) {
  const unsigned block = (b.z * grid_y + b.y) * grid_x + b.x;
  return ((block * block_z + t.z) * block_y + t.y) * block_x + t.x;
}
%(functions)s
int main() {
  unsigned seed = 1;
  auto next = [&](unsigned m) { seed = seed * 1103515245u + 12345u; return (seed >> 8) %% m; };
  for (int round = 0; round < 400; ++round) {
    grid_x = 1 + next(6); grid_y = 1 + next(3); grid_z = 1 + next(2);
    block_x = 1 + next(70); block_y = 1 + next(3); block_z = 1 + next(2);
    const BOUND bound = (BOUND)next(grid_x * block_x + 20) - (BOUND)(next(4) == 0 ? 30 : 0);
    const dim3 grid(grid_x, grid_y, grid_z), block(block_x, block_y, block_z);
    std::vector<int> want(grid_x * grid_y * grid_z * block_x * block_y * block_z);
    hits.assign(want.size(), 0);
    for (unsigned bz = 0; bz < grid_z; ++bz) for (unsigned by = 0; by < grid_y; ++by)
      for (unsigned bx = 0; bx < grid_x; ++bx) for (unsigned tz = 0; tz < block_z; ++tz)
        for (unsigned ty = 0; ty < block_y; ++ty) for (unsigned tx = 0; tx < block_x; ++tx)
          child__pdcc_thread(make_uint3(bx, by, bz), make_uint3(tx, ty, tz), grid, block, nullptr, bound);
    want.swap(hits);
    hits.assign(want.size(), 0);
    child__pdcc_serial(grid, block, nullptr, bound);
    if (hits != want) { std::printf("round %%d: grid %%u x %%u x %%u, block %%u x %%u x %%u, bound %%lld differ\n",
                                    round, grid_x, grid_y, grid_z, block_x, block_y, block_z, (long long)bound); return 1; }
  }
  std::printf("same\n");
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
@pytest.mark.parametrize("index, bound, test", [("int", "int", "i >= n"), ("unsigned", "int", "i >= n"),
                                                ("long long", "int", "(n) <= i"), ("int", "unsigned", "i >= n"),
                                                ("size_t", "long long", "n <= i")])
def test_the_trimmed_serial_loops_run_the_same_threads_as_the_full_ones(index: str, bound: str, test: str, tmp_path):
    """The serial version, compiled as host C++ (tests/meld/shim.h), against every thread of the launch run
    one by one through the outlined body, on random 3-D grids and blocks and bounds (negative ones too:
    against an unsigned index they turn no thread away)."""
    child = (f"__global__ void child(int* unused, {bound} n) {{\n  {index} i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             f"  if ({test}) return;\n  hits[cell(blockIdx, threadIdx)] += 1;\n}}\n")
    text = run(child, PARENT.replace("int n", f"{bound} n")).text
    start = text.index("// pdcc: the body of 'child'")
    functions = text[start:text.index("// pdcc: 'child' as pdcc launches it")]
    assert "pdcc_no_wrap" in functions
    source = tmp_path / "serial.cpp"
    source.write_text(f'#include "shim.h"\ninline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {{ return {{x, y, z}}; }}\n'
                      f"#define BOUND {bound}\n" + _DRIVER % {"functions": re.sub(r"^#line.*$", "", functions, flags=re.M)})
    ran = host_build_and_run(source, tmp_path)
    assert ran.returncode == 0 and ran.stdout == "same\n", ran.stdout
