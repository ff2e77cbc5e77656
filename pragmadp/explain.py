"""`pdcc --explain PDCCnnn`: a rule's id, name and summary (from report/rules.py), its longer explanation (what it
means, why pdcc says it, what to do) and the messages it prints, each placeholder shown as `<name>`.

`pdcc --explain all` lists every rule on one line each.
"""

from __future__ import annotations

import difflib
import string
import textwrap

from pragmadp.report import rules
from pragmadp.report.remarks import CommandError, Rule

#: longer explanations, by rule id (tests/test_explain.py checks that every rule of rules.ALL_RULES has one)
EXPLANATIONS: dict[str, str] = {
    # --- errors in the pragma language ---------------------------------------------------------------
    "PDCC100": """\
        The text after `#pragma dp` or `#pragma meld` does not follow the pragma grammar
        (grammar/pragma.lark): `#pragma dp CLAUSE*` or `#pragma dp off`, `#pragma meld [threshold(X)]` or
        `#pragma meld off`, each clause a name and its value in parentheses, clauses separated by blanks
        (`threshold(128) coarsen(2)`, `consldt(multiblock(8))`, `buffer(pool, 256)`, `work(a, b)`). pdcc reads
        the line as the preprocessor sees it (line splices joined, each comment one space); the caret points
        where the text stops following the grammar, and the message names what pdcc expected there. A pragma
        pdcc cannot read is an error rather than a pragma silently ignored, and nothing is compiled. Fix the
        pragma's text.""",
    "PDCC101": """\
        The pragma names a clause pdcc does not know. `#pragma dp` takes threshold, coarsen, consldt,
        agg_threshold, buffer, work, threads and blocks; `#pragma meld` takes threshold. A misspelled clause
        is an error rather than a pragma silently ignored, and nothing is compiled. The message suggests the
        nearest clause name when there is one, and its help line lists the known clauses.""",
    "PDCC102": """\
        A clause value is an integer literal (decimal, octal, hex or binary, with u/l suffixes, below 2^64) or
        the name of a macro you define; a C++ keyword or type name is not a macro name. Its range depends on
        the clause: threshold >= 0; coarsen, agg_threshold, multiblock(K) and a buffer's capacity >= 1; a meld
        threshold a profitability between 0 and 1; a number past what the site's macro may hold (e.g. coarsen
        above 65536) is refused too, naming that macro. consldt takes warp, block, multiblock(K) or grid, and
        buffer takes pool (or default) or malloc. Each value becomes a macro named after the site (e.g.
        PDCC_THRESHOLD_parent_0), so `-DPDCC_THRESHOLD_parent_0=512` retunes it later; a meld site is decided
        when pdcc transforms the file, so its knob PDCC_MELD_THRESHOLD_<site>, or a macro its threshold names,
        must be given with -D on pdcc's own command line and hold a number between 0 and 1.""",
    "PDCC103": """\
        A clause appears twice in one pragma, e.g. `#pragma dp threshold(64) coarsen(2) threshold(128)`. Each
        clause sets one value of the site (one macro), so pdcc does not guess which of the two you meant: the
        error points at the second and its help line gives the column of the first; nothing is compiled.
        Remove one of them. To try several values, keep one clause and set its macro with -D, or let `pdcc
        tune` sweep it.""",
    "PDCC104": """\
        The clauses are each valid but do not go together: a `#pragma dp` without any clause (write one, e.g.
        threshold(128), or `off`); `off` with other clauses; agg_threshold, buffer, work, threads or blocks
        without a consldt(...) in the same pragma, since they configure aggregation or consolidation; or
        agg_threshold with a multiblock or grid group, whose records are launched by the last of its blocks to
        finish, so it cannot count its parents before it launches (agg_threshold applies to warp and block
        groups). Nothing is compiled. Put all of a launch's clauses in one pragma and drop or change the one
        the caret points at.""",
    # --- errors binding pragmas to code ----------------------------------------------------------------
    "PDCC201": """\
        A `#pragma dp` binds to the statement right after it, which must be a device-side kernel launch of its
        own, `kernel<<<grid, block>>>(args);`. The pragma must be on a line of its own before that statement;
        a launch takes one pragma holding all its clauses (two `#pragma dp` lines before one launch are
        refused: merge them, e.g. `#pragma dp threshold(64) coarsen(2)`); and a pragma followed by anything
        else (a declaration, an if, a block, the end of the function) has no launch to apply to. Nothing is
        compiled. Move the pragma to the line just before the launch, or remove it.""",
    "PDCC202": """\
        pdcc rewrites launches made on the device (dynamic parallelism), from a __global__ or a __device__
        function: the serial path, coarsening, aggregation and consolidation all work from a parent thread on
        the GPU. A `#pragma dp` before a launch in host code (main, a host function) has nothing to work on,
        and a launch in a __host__ __device__ function also runs on the host, where pdcc's device-side code
        cannot. Nothing is compiled. Remove the pragma, or move the launch into a __global__ or __device__
        function.""",
    "PDCC203": """\
        pdcc's parser (tree-sitter-cuda) found a syntax error in the statement a `#pragma dp` annotates, or in
        the launch itself, so pdcc cannot tell what it would rewrite; it stops with this error rather than
        edit code it may misread, and nothing is compiled. The caret points at the first part the parser could
        not read. Usually it is a mistake in the code that nvcc would report too; otherwise write the launch
        in the plain form `kernel<<<grid, block>>>(args);`, or remove the pragma.""",
    "PDCC204": """\
        A `#pragma meld` binds to the if statement right after it (an if/else, an else-if chain or an if
        without else) in a __global__ or __device__ function; anything else after it is an error, and nothing
        is compiled. `#pragma meld off`, which keeps --auto from melding one branch, needs its if too. Put the
        pragma on the line just before the `if`.""",
    # --- errors with inputs and the toolchain ------------------------------------------------------------
    "PDCC301": """\
        pdcc reads the .cu files it compiles as UTF-8 text. A file that is not UTF-8 (e.g. Latin-1 comments)
        or holds NUL bytes is handed to nvcc untouched when it has no pdcc pragma; with a pragma it is
        refused, at the first byte pdcc cannot read, because its pragmas could not be applied. Convert the
        file to UTF-8 (`iconv -f latin1 -t utf-8`). A file that ends its lines with a carriage return alone
        (classic Mac OS) is refused too, since pdcc would count its lines differently from nvcc: convert its
        line ends (`dos2unix -c mac`). A file that cannot be read at all gets the operating system's reason.""",
    "PDCC302": """\
        pdcc transforms the source and runs nvcc on the result. It runs, in this order: the nvcc named in
        launcher style (`pdcc /path/to/nvcc ARGS`), PDCC_NVCC, `nvcc` of pdcc.toml, else the first `nvcc` on
        PATH that is not pdcc itself, else the toolkit's where CMake looks for it (CUDAToolkit_ROOT,
        CUDA_PATH, CUDA_HOME, /usr/local/cuda, the newest /usr/local/cuda-X.Y). A symlink named nvcc that
        points at pdcc (ccache's masquerade style) is skipped, and an nvcc that leads back to pdcc is not run
        twice; a compiler named explicitly that is pdcc itself, or does not exist, is this error too. Put the
        CUDA toolkit's bin folder on PATH, or set PDCC_NVCC to the real nvcc.""",
    "PDCC303": """\
        A pdcc option is malformed: a missing value, a --report whose extension names no format (use .json,
        .sarif, .md or .html), a -Rpass regular expression that does not compile, an --auto=@FILE that cannot
        be read, an --explain id no rule has, or a bad setting in PDCC_* variables or pdcc.toml (or
        [tool.pdcc] of pyproject.toml): an unknown key, or a value of the wrong type. Nothing is compiled; the
        exit status is 2. The message names the option, variable or key; fix it there.""",
    "PDCC304": """\
        pdcc could not write a file of its own: the temporary copy of a transformed input that nvcc compiles
        ($TMPDIR/pdcc-<uid>/...), an --emit copy, a --report or --report-dir file, or the dependency file
        (-MD, -MF) or preprocessed output (-E -o) it rewrites to name your sources. The message names the file
        and the operating system's reason. A --report or --report-dir that cannot be written stops the command
        before anything is compiled, and one that fails later fails the command (exit 1): the build asked for
        it. Free some space, set TMPDIR to a writable folder, pick a report path in an existing writable
        folder, or an --emit folder that would not overwrite an input.""",
    "PDCC305": """\
        nvcc, run by pdcc, was killed by a signal: e.g. SIGKILL from the out-of-memory killer, SIGINT, or a
        build system's timeout. pdcc passes this on as a shell would, with exit status 128 + the signal's
        number (137 for SIGKILL), so make or ninja stop as they would with nvcc itself. This is not an error
        in your code or in pdcc: look for memory pressure (fewer parallel jobs) or a timeout, and run the
        command again.""",
    "PDCC306": """\
        `pdcc report DIR -o FILE` merges the unit reports (*.pdcc.json) that a build wrote with --report-dir
        DIR into one report, whose format FILE's extension picks (.md, .sarif, .json, .html); --report-root
        ROOT makes its paths relative to ROOT, and --bench FILE adds `make bench` or `pdcc tune` results to
        the HTML report. This error is a malformed command line (an unknown option, a missing value, a second
        directory: exit 2) or an input it cannot use (exit 1): a directory that does not exist or holds no
        unit report (build with `--report-dir DIR` first, e.g. make NVCC='pdcc --report-dir DIR'), a unit
        report this pdcc cannot read (remove it, or rebuild that unit), or a --bench file that is not JSON.""",
    "PDCC307": """\
        Code that launches kernels from the device needs relocatable device code: pdcc compiles it with
        -rdc=true (remark PDCC700). Such objects must be device-linked before the host link, else the host
        link fails with `undefined reference to __cudaRegisterLinkedBinary_...`. nvcc device-links when the
        link command has -rdc=true (`nvcc -rdc=true a.o b.o -o app`); a build that links with another linker
        device-links with `nvcc -dlink a.o b.o -o dlink.o` and links dlink.o too. CMake does this for a target
        with `set_target_properties(T PROPERTIES CUDA_SEPARABLE_COMPILATION ON)`. pdcc finds this mistake at a
        link it runs by reading the objects' symbol tables.""",
    "PDCC308": """\
        nvcc failed in code pdcc wrote. The usual cause is a clause value that names a macro nobody defines:
        `#pragma dp threshold(N_UNDEFINED)` becomes `#define PDCC_THRESHOLD_parent_0 N_UNDEFINED`, used in the
        site's code. nvcc's message is pointed at the pragma's line (not at a line of pdcc's output), and this
        note follows it. Define the macro (-DN_UNDEFINED=128) or write a number.""",
    "PDCC309": """\
        With --Werror-missed (or werror-missed = true in pdcc.toml, PDCC_WERROR_MISSED=1) a missed remark, a
        site pdcc could not transform as its pragma asks, stops the build before anything is compiled, as
        -Werror does for warnings: for CI that insists every pragma takes effect. Each missed remark is
        printed first, as an error with its reason, then this error counts them; the exit status is 1. Change
        the code or the pragma as each remark says (`pdcc --explain` of its id tells more), or drop
        --Werror-missed.""",
    "PDCC310": """\
        At -c without -rdc=true of your own, pdcc compiles with -rdc=true and then device-links the object on
        its own (PDCC701): `nvcc -v -dlink`, `ld -r` with libcudadevrt.a from the folders nvcc names, and
        `objcopy`. One of these steps failed; its command and output are in the message, and the object was
        removed so that no build takes it as done. Install binutils (ld, objcopy) where nvcc runs, or put
        -rdc=true in your own flags and device-link the program yourself.""",
    "PDCC311": """\
        sccache in front of pdcc (CMAKE_CUDA_COMPILER_LAUNCHER=sccache with pdcc the compiler) runs
        `pdcc --dryrun ...` and then the steps it prints itself. At -c without -rdc=true of your own, pdcc
        compiles code that launches kernels from the device with -rdc=true and device-links the object on its
        own afterwards (PDCC701); no printed step can hold that, so the object would hold relocatable device
        code that the host link fails on (`undefined reference to __cudaRegisterLinkedBinary_...`). pdcc stops
        the dry run instead. Put -rdc=true in your own flags (CMake: CUDA_SEPARABLE_COMPILATION ON), or put pdcc
        in front of the cache: CMAKE_CUDA_COMPILER_LAUNCHER="pdcc;sccache" with nvcc the compiler.""",
    # --- threshold ---------------------------------------------------------------------------------------
    "PDCC500": """\
        `threshold(N)` took effect: the launch goes ahead only when the child has at least N threads (the
        macro PDCC_THRESHOLD_<site>, by default the pragma's value); below that the parent thread runs every
        (block, thread) of the child itself, through `child__pdcc_serial`, which calls the child's body
        outlined into `child__pdcc_thread`. Above it pdcc launches `child__pdcc_counted`, the child's body
        behind the launch budget (PDCC_LAUNCH_BUDGET launches at a time, 1024 by default): a launch that
        fails, or one past the budget, runs the serial path instead, so no work is lost and pdcc's launches
        never fill the device runtime's pending-launch pool. A small launch costs more to launch than its work
        is worth, while a large one would serialise too much in one thread: retune N with
        `-DPDCC_THRESHOLD_<site>=512` or `pdcc tune` (0 always tries the launch). PDCC501 says how the
        child-thread count was found.""",
    "PDCC501": """\
        An analysis remark: the number of child threads that threshold(N) compares with N, and how pdcc found
        it. pdcc recognises the ceiling divisions programmers write for a grid size, `(N+b-1)/b`, `(N-1)/b+1`,
        `N/b + (N%b != 0)`, `ceil((float)N/b)`, `ceil(N/(float)b)`, per dimension of a dim3, through casts,
        min/max clamps and a local variable such as `int blocks = ...` (while nothing may change its inputs
        before the launch), and takes the count N from it. Otherwise the count is grid x block, the threads
        the launch starts, which can exceed the real work by almost a block. The count only chooses between
        the serial path and the launch; it never changes what the program computes. Write the grid size as one
        of these divisions to have the threshold compare your real N.""",
    "PDCC510": """\
        The child, or a device function it calls (in this file, or in a header the file includes with quotes),
        synchronises its threads with __syncthreads (or its _count, _and, _or forms), __syncwarp or
        __barrier_sync. Run one after another in the parent thread, the child's threads never reach the
        barrier together, so threshold leaves the launch as written. Aggregation refuses such a child too (an
        aggregated block holds idle threads beyond its record's block size, which never reach the barrier),
        and so does consolidation of a recursion (an item's threads do not run together as the blocks they
        were launched as) unless every launch of the recursion gives the same one-dimensional block size: the
        consumer then runs each block of an item as launched, provided no return is taken by some threads of
        a block and not others (a condition on threadIdx is, and so is a return in a loop that some threads
        `continue` or leave first; a condition on a __shared__ flag that a thread sets before a barrier, the
        last-block pattern, is not, unless the flag is read as others write it: volatile, behind `&`, or
        written in a loop without a barrier). coarsen works: a coarsened block puts a
        __syncthreads() between the original blocks it runs. The end of the message says which pass gave up;
        use coarsen for such a child, or remove the barrier if its threads need not cooperate.""",
    "PDCC511": """\
        The child, or a device function it calls (in this file, or in a header the file includes with quotes),
        uses __shared__ memory, which the threads of a block share. Run serially in the parent thread there is
        no block of the child to share it with (a __shared__ variable there would be shared by the parent's
        block, whose threads each run a different child), so threshold leaves the launch as written;
        consolidation of a recursion refuses too, since a consolidated item's threads do not run together as
        the blocks they were launched as, unless every launch of the recursion gives the same one-dimensional
        block size (each block of an item then runs as launched). coarsen works (a __syncthreads() between the
        original blocks a block runs keeps one block's data from being overwritten while another still reads
        it), and so does aggregation, whose blocks each run one record's block. Use coarsen or consldt for
        such a child, or threshold a child that keeps its data in registers or global memory.""",
    "PDCC512": """\
        The child, or a device function it calls (in this file, or in a header the file includes with quotes),
        uses a warp-level intrinsic (__shfl*, __ballot*, __any_sync, __all_sync, __activemask, __match_*,
        __reduce_*_sync, ...), whose result depends on the other lanes of its warp running it at the same
        time. Run serially in one parent thread there are no such lanes, so threshold leaves the launch as
        written; aggregation refuses too (an aggregated block holds idle threads, so a warp may run partly
        empty), and so does consolidation of a recursion (an item's threads do not run as the warps they were
        launched as) unless every launch of the recursion gives the same one-dimensional block size (each
        block of an item then runs as launched). coarsen works: a coarsened block runs each original block
        with all of its threads. Use coarsen for such a child.""",
    "PDCC513": """\
        The child, or a device function it calls (in this file, or in a header the file includes with quotes),
        uses cooperative groups (cooperative_groups, this_thread_block, this_grid, tiled_partition,
        coalesced_threads, thread_block_tile, ...), whose groups are the threads, blocks and grid the child
        was launched with. pdcc's serial path, coarsened blocks, aggregated grids and consolidated items all
        change those, so every pass leaves such a launch as written: threshold, coarsen and consldt alike.
        Remove the pragma, or write the child with the plain built-ins (threadIdx, blockIdx, __syncthreads) if
        you want pdcc to work on it.""",
    "PDCC514": """\
        The launched kernel launches itself, in its body or in a device function it calls (in this file, or in
        a header the file includes with quotes). threshold cannot run it serially (its serial version would
        recurse in the parent thread without bound), coarsening would reach the first level of the recursion
        only, and aggregation does not serve it either, so the launch is left as written. A recursion is
        served by consolidation instead: put consldt(block) (or warp, grid) on the kernel's launch of itself,
        where threshold(N) then runs small items in the launching thread; the kernel must then be launched
        from the host only (PDCC573). Consolidation reports this rule too when the kernel launches itself on
        every path, with no condition and no return before the launch: a recursion without a base case, which
        would run level after level without end.""",
    "PDCC515": """\
        pdcc builds each pass's code (the serial version, the coarsened and aggregated kernels) from the
        child's body, so it needs the one definition of the launched kernel in the file it compiles. Here it
        has none it can use: the kernel is defined in another file or in an included header, or only declared
        there; it has several definitions (overloads: pdcc cannot tell which one is launched); its definition
        is split by #if/#ifdef branches (the signature in them, the body after them), which pdcc does not
        evaluate; or the definition could not be parsed. The launch is left as written, and the rest of the
        file is still transformed. Define the kernel, whole, in the file that launches it (in each #if
        branch), give overloads distinct names, or remove the pragma.""",
    "PDCC516": """\
        The child, or a device function it calls (in this file, or in a header the file includes with quotes),
        contains inline assembly (asm, __asm__). pdcc cannot see what it does (it may read special registers
        such as %tid or %ctaid, synchronise, or exchange values within its warp), so every pass leaves the
        launch as written: threshold, coarsen and consldt alike. Write that code with CUDA built-ins and
        intrinsics, which pdcc can read, or remove the pragma.""",
    "PDCC517": """\
        The child's signature, the parent's, or the launch has a form the pass cannot build its code for; the
        message says which: a parameter pdcc cannot forward (an unnamed function pointer, C varargs), a
        default argument that depends on a template parameter the launch does not name (write
        `child<float><<<...>>>`), a parameter pack, or a kernel defined outside its namespace or class (as
        `__global__ void ns::k(...)`). Aggregation also needs the child defined before its parent, explicit
        template arguments at the launch of a template child, the launch in a kernel rather than a __device__
        function, no dynamic shared memory or stream in the launch, an argument for every parameter without a
        default, and a parent that is not itself launched from the device (its grids would share the site's
        record pool); consolidation refuses template kernels, dynamic shared memory or a stream, and extra
        arguments. The launch is left as written for that pass: change the code as the message says, or drop
        the clause.""",
    "PDCC524": """\
        The child, or a device function it calls, calls a function that the file or a header it includes with
        quotes declares __device__ but does not define: its definition is in another translation unit (built
        with -rdc=true and device-linked). pdcc cannot see whether it synchronises the block, uses shared memory
        or warp intrinsics, or reads threadIdx and blockIdx itself, and each of those would break the serial
        path, a coarsened block, an aggregated block or a consolidated item, so every pass leaves the launch as
        written. Define the function in a header the file includes (inline __device__), or remove the pragma.
        (Functions that are not declared in the file or its headers at all, CUDA's own among them, are assumed
        not to cooperate.)""",
    "PDCC525": """\
        The child, or a device function it calls, calls __nanosleep. pdcc's serial version of a child runs in
        the lanes of the parent's warp that do not launch (below the threshold, or when a launch fails), beside
        lanes that do. Measured on sm_90 (bench/results/2026-12-06-h100-inline-serial-split): a yield point in
        that loop, and __nanosleep is one, lets the warp run its launching lanes first, and the device runtime's
        launch clears the warp's convergence barrier, so the lanes never meet again and the program hangs. pdcc
        keeps its serial version out of line, where ptxas puts no yield point, unless the child asks for one.
        So a child that sleeps gets no serial version: threshold leaves the launch as written, and a failed
        launch of an aggregated or budgeted site is retried instead of run in the parent. Coarsening, aggregation
        and consolidation are not affected. Drop the __nanosleep (a spin without it), or the threshold
        clause.""",
    "PDCC526": """\
        The child, or a device function it calls, has a loop (or a goto back to a label before it) that only
        memory other threads write lets end: its condition reads such memory, or an `if` around a `continue`
        of it does (unless a for's update makes the loop's progress), or it has no condition that can change
        (for (;;), while (true), or a bound the loop changes neither side of) and an `if` that leaves it
        does; directly, through a variable, member or element the loop sets from such a read (or under an
        `if` on one, or in an inner loop one ends), or through a function or lambda it calls. Such a read is
        a load through a volatile pointer or of a volatile global (a macro for one too), an atomic that only
        reads (atomicAdd(p, 0), atomicCAS(p, v, v)), an atomic load (__atomic_load_n, __ldcv, __ldcg), a use
        of an atomic object (cuda::atomic_ref's load, atomic_flag's test), or, in a loop that calls
        __threadfence and stores or calls nothing else, any load through a subscript or a pointer. It waits
        for another thread: a flag, a count, a predecessor's result. pdcc's serial version runs the child's
        threads one after another in the parent thread, so a thread waiting for a later one would wait
        forever; coarsening runs several of its blocks one after another in one block, and consolidation
        several items in one consumer, with the same risk. Those passes leave the launch as written, and a
        failed launch is retried rather than run in the parent; aggregation keeps every thread of the child
        and still applies. An atomic that changes memory is no wait (taking work with atomicAdd(&next, 1), a
        CAS update loop, a lock taken with atomicCAS or atomicExch alone, released before the next thread
        runs), nor a loop a bound ends anyway (for i < n, leaving early when a flag is set; but i < n &&
        !*found in the condition counts as a wait), nor a do-while (0). Types behind a typedef or using
        count as what they stand for; a loop one of whose ways out it changes out of sight (through a
        reference, a pointer or a macro) waits when anything in it is such a read; not seen: an alias of an
        alias, a macro that is a whole loop, a lambda passed to a function the loop calls or copied to
        another variable.""",
    "PDCC518": """\
        pdcc's copies of the child's body take threadIdx, blockIdx, blockDim and gridDim as parameters (the
        outlined `child__pdcc_thread`), so that the serial path, a coarsened block or an aggregated block can
        say which original thread runs. It rewrites the built-ins in the child's own body only: one read in a
        device function the child calls, through a macro whose replacement names a built-in (`#define TID
        (blockIdx.x * blockDim.x + threadIdx.x)`), or in a lambda in the child, would see the real thread
        instead, so every pass leaves the launch as written. Pass the indices to the helper as arguments,
        write them out in the child's body instead of the macro, or compute them before the lambda and capture
        the value.""",
    "PDCC519": """\
        threshold runs a small launch at once, in the parent thread. A launch into a stream other than the
        default one (0, NULL, nullptr) is ordered in that stream: after the work already in it, or, for a tail
        launch (cudaStreamTailLaunch), after the parent's grid; running the child right away would break that
        order, so the launch is not thresholded and stays as written. If the order does not matter, launch
        into the default stream (leave the stream out); otherwise use coarsen, which keeps the launch and its
        stream, or no pragma. Aggregation and consolidation refuse a launch with a stream as well (PDCC517).""",
    "PDCC520": """\
        An analysis remark at a thresholded launch that comes after another device launch of the same parent
        (the message names its line). Device launches without a stream of their own go into one stream, in
        order, so a launched child starts after the earlier grid; the serial path below the threshold runs at
        once, in the parent thread, while that grid may still be running. If the child run serially reads what
        the earlier grid writes, or writes what it reads, the result can differ from the original program's.
        Check that the two share no data; if they do, do not threshold this launch.""",
    "PDCC522": """\
        The child launches kernels itself (nested dynamic parallelism), in its body or in a device function of
        this file that it calls. pdcc's serial, coarsened and aggregated copies of the child's body (and a
        consolidated recursion's) are made from its source, so they would hold those inner launches without
        their own pragmas, launch checks and launch budget; every pass therefore leaves such a launch as
        written. Annotate the launches inside the child instead: they are sites of their own, whose parent is
        the child.""",
    "PDCC523": """\
        pdcc needs a launch's grid and block sizes: the thread count of threshold, coarsening's grid, the
        records of aggregation and the work items of consolidation are all built from them. A launch that
        gives its grid size alone (`kernel<<<grid>>>(args)`) is left as written by every pass of the site
        (and, for a consolidated recursion, the kernel's other launches too, since a recursion is consolidated
        whole). Write the block size in the launch: `kernel<<<grid, block>>>(args)`.""",
    # --- coarsen -----------------------------------------------------------------------------------------
    "PDCC550": """\
        `coarsen(F)` took effect: pdcc added `child__pdcc_coarse`, whose blocks each loop over the original
        blocks assigned to them (stride gridDim.x), running the child's outlined body with the original block
        index and grid, and launches it with ceil(grid.x / F) blocks (y and z as written). F is the macro
        PDCC_COARSEN_<site> (1 to 65536), so `-DPDCC_COARSEN_<site>=8` or `pdcc tune` retunes it. A child with
        __shared__ memory or barriers gets a __syncthreads() between original blocks. With threshold too,
        small launches run serially and large ones launch the coarsened kernel; fewer, fuller blocks cost less
        scheduling, and the coarsened kernel gives back its launch of the launch budget as it starts.""",
    # --- consldt: aggregation ----------------------------------------------------------------------------
    "PDCC560": """\
        `consldt(G)` took effect on a launch of another kernel (KLAP's launch aggregation): a parent thread no
        longer launches; it appends a record (the launch's grid and block and the arguments that vary) to its
        group's storage, and one thread per group launches `child__pdcc_agg_<site>` once for all the group's
        records, whose blocks find their record by a binary search over the scanned block counts and run the
        child's body. G is warp or block (flushed at the end of the parent, which pdcc turns into a wrapper
        around `parent__pdcc_body`), multiblock(K) (K is PDCC_GRANULARITY_<site>) or grid (flushed by the last
        block of the group to finish). Arguments that are the same for the whole group (parameters the parent
        never changes, constants, gridDim and blockDim, blockIdx for warp and block groups) are passed once;
        `work(v, ...)` marks the arguments that mention v as varying. With agg_threshold(P)
        (PDCC_AGG_THRESHOLD_<site>) a warp or block group of fewer than P records launches them one by one.
        Two launches of the same aggregating parent must not run at once: the pool and the group slots are per
        site.""",
    "PDCC561": """\
        An analysis remark on where an aggregated site's records live: a device pool of PDCC_POOL_BYTES_<site>
        bytes (64 MiB by default), handed out per group at run time from the real launch configuration. A
        group asks for its threads times PDCC_RECORDS_PER_THREAD_<site> records (1, or 4 when the launch is in
        a loop) or, with buffer(KIND, CAP), for PDCC_RECORDS_<site> (= CAP) records, and gets at most its fair
        share of the pool (the pool over the groups of the grid), so every group has storage however large the
        grid; buffer(malloc) is served from the pool too. A record that does not fit is launched directly (or
        run serially), so no work is lost, only the aggregation's gain. If many records overflow, raise the
        pool (-DPDCC_POOL_BYTES_<site>=...) or the records per group.""",
    # --- consldt: consolidation of a recursion -----------------------------------------------------------
    "PDCC570": """\
        `consldt(G)` on a kernel's launch of itself took effect (consolidation): a thread no longer launches;
        it appends a work item (the launch's grid and block and the arguments that vary: `work(...)`, by
        default every argument not passed on unchanged) to the queue of the next level. The kernel as the
        program launches it becomes a wrapper that runs its body as level 0; the last block of each level to
        finish tail-launches `kernel__pdcc_level`, the consumer of the next level, which runs every (block,
        thread) of every item: a thread per item when every launch is `<<<1, 1>>>`, else a block per item of
        PDCC_THREADS_<site> threads (the launch's block size when it is a number, else 256, or threads(E)), in
        PDCC_BLOCKS_<site> blocks (blocks(E); 0 for one per item). When the kernel opens with
        `int i = <global x index>;`, declarations that only read its parameters and `if (i >= B) return;`,
        each append evaluates them once for its item and keeps the count of threads before B, and the
        consumer runs only those (the others would return at once), packed: a block runs several items'
        live threads in one loop, so that items of a few threads fill its warps (0 blocks then means as many
        as the level's live threads fill once). A tail launch keeps no launch of the levels before it
        pending, so the recursion may be as deep as it likes without device synchronization, with one launch
        per level instead of one per node; a consumer grid of at most one block per SM goes on with a narrow
        next level itself, at a grid-wide barrier (about 3 us on an H200 against 14 us for a tail launch). A
        kernel whose threads cooperate (barriers, shared memory, warp intrinsics) runs "block by block, as
        launched": every launch gives the same one-dimensional block size, which the consumer's blocks have,
        and each runs one block of an item. G (warp, block, grid) is the unit buffer(KIND, CAP)
        counts in; the consolidated launches of one kernel share the queue and consumer of the first.
        Kernels that launch one another under consldt (mutual recursion: `ping` launches `pong`, which launches
        `ping`) are consolidated together: each keeps a queue of its own items, and one consumer per level
        (named after the first of them) runs every queue's items, so a level is over for all at once; their
        items store every argument (no argument is passed once for all).""",
    "PDCC571": """\
        An analysis remark on a consolidated kernel's work queue: PDCC_POOL_BYTES_<site> bytes (64 MiB by
        default) of device memory, half for the items of the level that runs and half for those it appends. A
        level keeps PDCC_BUFFER_<site> (the CAP of buffer(KIND, CAP)) items per group of the launches it runs,
        at most half the pool; without buffer, half the pool. An item past that is launched as a grid of its
        own (`kernel__pdcc_direct`, through the launch budget), whose own items still go to the queue; when
        the budget is spent the item stays in the queue's memory for the next level to run, and only when that
        is full too is it launched whatever the budget says, retried with back-off, so no work is lost. For a
        wide recursion raise the pool (-DPDCC_POOL_BYTES_<site>=...) or the buffer. The queue and its level
        counters are device variables, one set per recursion: two runs of the recursion at once (the host
        launching it on two streams that overlap) would share them and mix their levels, so run them one
        after the other, as with aggregated parents.""",
    "PDCC572": """\
        After the kernel launches itself, code that follows in the same thread reads something the launched
        grids write (the message names it and the launch). Calls are followed into the device functions of the
        file and its headers: what a helper writes or reads through a parameter counts as the kernel's, and an
        atomic whose result goes unused reads nothing (a failure counter after the launch is fine).
        Consolidated, those grids' work runs in a later level, after the whole current one; nothing pdcc
        writes can wait for it, since device-side cudaDeviceSynchronize is gone on sm_90, so the read would
        run before the children it depends on. pdcc therefore does not consolidate the recursion, and every
        launch of the kernel stays as written. Move the work that needs the children's results out of the
        recursion (e.g. into a kernel the host launches after it), or let the children write their results
        themselves.""",
    "PDCC573": """\
        Consolidation runs a recursion level by level through one work queue per kernel, so it takes every
        device launch of the kernel or none. The message names the launch that stops it: a launch of the
        kernel by itself without consldt(...); a launch of it from another kernel or device function (two
        recursions of the kernel would share one queue); or another consolidated launch of the kernel that has
        a problem of its own, told by its own remark. The launches of the kernel are left as written. Put
        consldt(...) on every launch of the kernel by itself, launch the kernel only from the host, and fix
        what the other launch's remark says.""",
    "PDCC574": """\
        An analysis remark: a clause of a consolidated launch changes nothing here. `work(v)` names a variable
        that no argument of the launch mentions (a work item holds the arguments that vary, and none is v);
        buffer, threads or blocks on a launch other than the kernel's first consolidated one, whose clauses
        configure the queue and the consumer that all of the kernel's consolidated launches share. The launch
        is consolidated all the same. Remove the clause, or move the setting to the first consolidated launch
        of the kernel.""",
    # --- clauses without a transformation; pragmas pdcc cannot read -------------------------------------
    "PDCC600": """\
        The clause parses, but pdcc has no transformation for it in this place yet, so it is not applied and
        the launch is left as written for it; the site's other clauses still apply. Today that is threads(E)
        or blocks(E) on a launch that is not a kernel's launch of itself (they configure consolidation's
        consumer), agg_threshold on a consolidated launch (its items are consolidated whatever their number),
        and consolidation per multiblock(K) (use warp, block or grid; the kernel's launches are then left as
        written). It is a missed remark, so --Werror-missed stops the build on it. Remove the clause, or
        change it as the message says.""",
    "PDCC601": """\
        `#pragma dp off` before a launch keeps --auto away from it: --auto treats every device-side launch
        without a pragma as annotated with its clauses (threshold(128) by default), and an opted-out launch
        stays as written. pdcc does not emit this remark at present: it leaves such a launch out of --auto's
        sites without a word. Use it on the launches --auto should not touch; `#pragma meld off` does the same
        for an if/else.""",
    "PDCC602": """\
        pdcc reads the `#pragma dp` and `#pragma meld` lines of the .cu file it compiles, before the
        preprocessor runs, and says so where a pragma would otherwise be ignored without a word: a
        `_Pragma("dp ...")`, or a macro that expands to one, is not read, nor is a pragma in a local header
        the file includes with quotes (pdcc transforms the .cu files it compiles, not the headers they
        include). The code there stays as written. Write `#pragma dp ...` on its own line before the launch in
        the .cu file, and move an annotated kernel from the header into that file.""",
    "PDCC603": """\
        To know whether a child kernel may run serially, or only as the blocks it was launched as, and whether
        a melded branch's calls may run as one, pdcc reads the device functions they call, in the .cu file
        and in the headers it includes with quotes (found as the preprocessor finds them, the headers they
        include in turn). It does not read a header larger than 16 MiB, a file that is not a regular file
        (a FIFO, a device), or headers past the 256th: this remark names such a header at its #include. A
        function defined only there is taken for one that does not synchronise, share memory or read thread
        indices, as functions of other translation units are. If the child or the branch calls into it,
        check by hand that it does none of these, or move the functions it calls into a header pdcc reads.""",
    "PDCC530": """\
        With -rdc=true, which device launches need, a kernel's register count is fixed at device link, where
        the serial path and the device runtime's calls can push a rewritten parent past the 64 registers per
        thread that a 1024-thread block allows; it would then fail to launch with large blocks. So every
        kernel pdcc rewrites, or that calls a device function holding a rewritten site, is bounded to the
        block size its original allowed: one without __launch_bounds__ of its own gets __launch_bounds__(1024)
        (this remark), one with its own keeps them, and the kernels pdcc writes take the child's bounds or
        1024. ptxas then keeps the registers within what every block needs. If the kernel is only launched
        with smaller blocks, write your own __launch_bounds__(N): pdcc keeps it.""",
    # --- the build ---------------------------------------------------------------------------------------
    "PDCC700": """\
        The transformed code launches kernels from the device (dynamic parallelism), which needs relocatable
        device code, so pdcc added -rdc=true to the compile (and -lcudadevrt to a link). Objects compiled so
        must be device-linked: at -c pdcc does it per object (PDCC701); at other phases (-lib, -ptx, ...) link
        with `nvcc -rdc=true`, or add an `nvcc -dlink` step; in CMake, set CUDA_SEPARABLE_COMPILATION ON on
        the target. Put -rdc=true in your own flags and pdcc adds nothing.""",
    "PDCC701": """\
        An object compiled at -c with the -rdc=true pdcc added is device-linked on its own, as CMake's
        CUDA_RESOLVE_DEVICE_SYMBOLS does for a library: its device link and the device runtime's host side are
        put into the object, their symbols made local, and its relocatable device code renamed so that nvlink
        does not link it twice. Link it with anything: the host compiler, nvcc, nvcc -rdc=true. Its device
        code sees no other object's, as without -rdc.""",
    # --- meld ----------------------------------------------------------------------------------------------
    "PDCC800": """\
        `#pragma meld` (or --auto) melded the two sides of a divergent if/else into one path: statements
        aligned with each other run once for every thread, their differing operands chosen by selects on the
        condition (evaluated once, into `pdcc_then`), loads and stores through a selected address, and the
        statements left unaligned stay guarded by `if (pdcc_then)` / `if (!pdcc_then)`. The profitability is
        the latency melding saves over the latency of both sides, in DARM's costs (memory access 100, division
        20, multiplication 10, addition 5, other 3, less 3 per select; at most 0.5), and the site melds when
        it reaches PDCC_MELD_THRESHOLD_<site> (the pragma's threshold(X), default 0.2). A warp whose threads
        disagree then runs the shared work once instead of once per side. pdcc decides when it transforms, so
        retune with `-DPDCC_MELD_THRESHOLD_<site>=X` on pdcc's command line; PDCC801 shows the aligned
        statements. Two loops melded into one counted loop (loops that walk opposite ways) run melded only
        from PDCC_MELD_MIN_TRIPS_<site> trips (256; a macro of the code, so -D it where the file is compiled),
        and as written below that: on an H100 such a meld ran 0.57x at 64 trips and 1.38x at 512.""",
    "PDCC801": """\
        An analysis remark: which statement of the if side was aligned with which of the else side (`a ~ b`),
        by Smith-Waterman over the two sides' statements, each pair scored by what melding it saves in DARM's
        costs. The first six pairs are shown, then how many more. Nested ifs and loops align when their shapes
        match, a statement may align with one inside a nested if of the other side, and an else-if chain melds
        from its tail up. It comes with PDCC800 when the site melds and with PDCC802 when it does not.""",
    "PDCC802": """\
        The melding profitability of the if/else (the latency melding saves over that of both sides, in DARM's
        costs; at most 0.5) is below the site's threshold, PDCC_MELD_THRESHOLD_<site> (threshold(X) of the
        pragma, default 0.2), or no statements of the two sides could be melded at all. Two loops that step or
        test differently (`++k` against `--k`) meld into one counted loop over the trip number when both are
        counted loops (a signed counter stepped by one against bounds that only writes naming them change,
        trip counts of one name or a constant); otherwise they would meld into a loop whose step is a select,
        which nvcc no longer unrolls, so their memory accesses count as saving nothing. The if/else is left as written;
        PDCC801 shows what was aligned. If measurements say melding pays here, lower the threshold with
        threshold(X) or `-DPDCC_MELD_THRESHOLD_<site>=X` on pdcc's command line (`pdcc tune` tries a threshold
        that melds and one that does not).""",
    "PDCC803": """\
        An analysis remark: the if's condition is the same for every thread of a warp. It reads only
        parameters, constants and block-wide values (a __shared__ scalar that is not volatile reads the same
        in every thread of a block, whichever thread wrote it): not threadIdx (directly, or through variables,
        loads it indexes or calls), nor memory the function writes (analysis/divergence.py); so a warp never
        runs both sides and there is nothing to meld. The if/else is left as written, at no cost: a uniform branch does
        not diverge. Remove the pragma, or put it on a branch whose condition depends on the thread.""",
    "PDCC804": """\
        Under --auto pdcc considers for melding every if with an else in __global__ and __device__ functions
        (the head of an else-if chain; not an if pdcc wrote, nor one under `#pragma meld off`), and reports
        only the ones it melds, with PDCC800: a file has many branches pdcc rightly leaves alone. This rule is
        kept for the branches --auto considered; pdcc does not emit it at present. To learn why a branch was
        not melded, annotate it with `#pragma meld`: its missed or analysis remark then says why.""",
    "PDCC805": """\
        Both sides of the if/else are a few arithmetic operations (at most 40 cycles each in DARM's costs)
        with no memory access, loop or call. Melding them would save a few instructions per thread, which the
        loads and stores around the branch hide: on an H200, the DCT quantisation diamond melded by hand ran
        32 lanes per instruction instead of 21 and 38% fewer instructions, in the same time. So pdcc leaves
        such an if/else as written, whatever its threshold.""",
    "PDCC810": """\
        A side of the if/else, or a device function it calls (of this file or of a header the file includes
        with quotes), calls a barrier (__syncthreads or its _count, _and, _or forms, __syncwarp,
        __barrier_sync) or __threadfence_block. Melding changes which statements threads run together (aligned
        statements run for every thread, the others stay guarded), so it would change which threads reach the
        barrier, and when: a deadlock, or synchronisation the code no longer gets. The if/else is left as
        written. Move the barrier out of the if/else to meld it.""",
    "PDCC811": """\
        A side of the if/else, or a device function it calls (of this file or of a header the file includes
        with quotes), uses a warp-level intrinsic (__shfl*, __ballot*, __any*, __all*, __activemask, __match*,
        __reduce*, __vote*), whose result depends on which lanes of the warp run it together. Melded, it would
        run with the lanes of both sides at once, and exchange values between lanes that did not before. The
        if/else is left as written.""",
    "PDCC812": """\
        A side of the if/else, or a device function it calls (of this file or of a header the file includes
        with quotes), uses cooperative groups (cooperative_groups, cg::, this_thread_block, tiled_partition,
        this_grid, coalesced_threads), whose collective operations involve the threads that are in the branch
        together: coalesced_threads() is the set of lanes that took this side. Melding changes that set, so
        the if/else is left as written. Meld a branch whose sides use no cooperative groups.""",
    "PDCC813": """\
        A side of the if/else leaves it with return or goto, or with a break or continue that jumps out of the
        if/else (not one inside a loop or switch of the side itself). Melded code runs the aligned statements
        of both sides in one sequence, which needs both sides to run to their end; a jump out of one side
        would skip work the other side's threads still do. The if/else is left as written. To meld it, let the
        side end normally, e.g. set a flag and return (or break) after the if/else.""",
    "PDCC814": """\
        An atomic function (atomicAdd, atomicCAS, ...) or a volatile variable appears on one side of the
        if/else only. Melded loads and stores access memory through an address chosen by a select, and an
        atomic or volatile access must not be merged with a plain one: the melded access would be atomic (or
        volatile) for both sides or for neither. The if/else is left as written. Two sides that use the same
        atomic functions and volatile variables are not refused for this.""",
    "PDCC815": """\
        The statements pdcc could align access memory through pointers of different address spaces, __shared__
        on one side and global on the other. One access through a selected address would be a generic access,
        losing the shared-memory access of the side that had it, so pdcc makes no such select. When no other
        pair of statements can be aligned, the if/else is left as written and this remark names the accesses;
        where other pairs align, the site melds without these.""",
    "PDCC816": """\
        Kept for a condition with side effects (an assignment, an increment or a call) that melding would have
        to reorder. pdcc does not emit it at present: a melded if/else evaluates its condition once, where the
        if did, into `const bool pdcc_then`, so its side effects happen once and in order; and of an else-if
        chain, only the conditions without memory access, call, division or side effect are evaluated ahead,
        the others where the chain evaluates them. A condition with side effects is not refused for them.""",
    "PDCC817": """\
        The if/else holds something pdcc cannot move or guard safely, named in the message: a kernel launch
        (left to `#pragma dp`), inline assembly, a label or a throw, a __shared__, static or extern
        declaration, a reference declaration, a preprocessor directive, a declaration whose form or `auto`
        type pdcc cannot tell, a name it would have to rename in code it keeps as written, or a condition that
        declares a variable; a call of a device function whose inline assembly pdcc cannot see into, of one
        defined in another translation unit (PDCC524), or through a function object or pointer, whose body
        pdcc does not see (melded calls run as one call by the threads of both sides); and an if/else in host
        code (pdcc melds branches of __global__ and __device__ functions). Melding moves declarations to the
        top of the melded block and guards the unaligned statements, which these do not survive. The if/else
        is left as written; move the construct out of it, or write it plainly (e.g. declare the variable
        before the if, with its type).""",
    # --- pdcc itself ---------------------------------------------------------------------------------------
    "PDCC900": """\
        pdcc failed: a bug in pdcc, not in your code. The message names the pass and the site, and a
        reproducer directory (pdcc-crash-<hash> in the temporary directory) holds the input, the command and
        the traceback. Nothing is compiled.""",
}

#: a help line pdcc prints under a remark where the build needs the user to act (not an error's help: errors
#: carry theirs in their rule's messages)
ADVICE: dict[str, str] = {
    "PDCC700": "objects compiled with -rdc=true need a device link: link with nvcc -rdc=true, or add an "
               "'nvcc -dlink' step (CMake: CUDA_SEPARABLE_COMPILATION ON); 'pdcc --explain PDCC700' says more",
}

#: how the `{reason}{outcome}` message of the rules that say why a pass stops reads, by the id's prefix
_WHY_NOT_READS = {
    "PDCC5": "<what stops the pass, and its line>; <what is not done: the launch is left as written (threshold), "
             "it is not coarsened, the launches are not aggregated, or the launches are left as written (a "
             "recursion)>",
    "PDCC8": "<what stops melding, and where>; the if/else is left as written",
}

_KIND_OF_RULE = {"PDCC1": "error", "PDCC2": "error", "PDCC3": "error", "PDCC9": "error"}


def _rules() -> dict[str, Rule]:
    return {rule.id: rule for rule in rules.ALL_RULES}


def _kind(rule: Rule) -> str:
    return _KIND_OF_RULE.get(rule.id[:5], "remark")


def readable(template: str, rule: Rule | None = None) -> str:
    """A message template as a person reads it: each placeholder `{name}` as `<name>` (an escaped brace stays
    the brace pdcc prints); the `{reason}{outcome}` of a pass that stops says what each part is."""
    parts = list(string.Formatter().parse(template))
    fields = [name for _, name, _, _ in parts if name is not None]
    if rule is not None and fields == ["reason", "outcome"] and not any(text for text, *_ in parts):
        return _WHY_NOT_READS.get(rule.id[:5], "<reason><outcome>")
    return "".join(text + (f"<{name}>" if name is not None else "") for text, name, _, _ in parts)


def explain(rule_id: str) -> str:
    """The text `pdcc --explain RULE_ID` prints; CommandError (PDCC303) for an id no rule has."""
    known = _rules()
    if rule_id.lower() == "all":
        return "".join(f"{rule.id}  {rule.name} ({_kind(rule)}): {rule.summary}\n"
                       for rule in sorted(known.values(), key=lambda r: r.id))
    rule = known.get(rule_id.upper()) or known.get(f"PDCC{rule_id}")
    if rule is None:
        by_name = {rule.name: rule for rule in known.values()}
        rule = by_name.get(rule_id)
    if rule is None:
        close = difflib.get_close_matches(rule_id.upper(), known, n=1) or \
            [by_name[name].id for name in difflib.get_close_matches(rule_id, by_name, n=1)]
        if close:
            raise CommandError(rules.BAD_COMMAND_LINE, "unknown-rule-suggested", rule=rule_id, suggestion=close[0])
        raise CommandError(rules.BAD_COMMAND_LINE, "unknown-rule", rule=rule_id)
    lines = [f"{rule.id} {rule.name} ({_kind(rule)})", "", textwrap.fill(rule.summary, 100)]
    if rule.id in EXPLANATIONS:
        # (a hyphenated word such as `built-ins` is never split at the end of a line)
        lines += ["", textwrap.fill(" ".join(textwrap.dedent(EXPLANATIONS[rule.id]).split()), 100,
                                    break_on_hyphens=False)]
    if rule.messages:
        lines += ["", "messages:"]
        for message in rule.messages.values():
            if message.text:
                lines.append(f"  {readable(message.text, rule)}")
            if message.hint:
                lines.append(f"  {'  ' if message.text else ''}= help: {readable(message.hint, rule)}")
    elif rule.message:
        lines += ["", f"message: {readable(rule.message, rule)}"]
    return "\n".join(lines) + "\n"
