/* WebAssembly: the entry of a thread wasi-threads spawns, and the unwinding that ends it.
   (A new thread's instance starts with its stack pointer where the main thread's is:
   it must be set before any C runs.) And memcpy, memmove and memset, with memory.copy
   and memory.fill, made safe for memory another thread has just grown (below). */

    .globaltype __stack_pointer, i32
    .functype __pnacl_thread_main (i32, i32) -> ()

/* The exception that unwinds a thread to its start when it exits (its payload unused). */
    .globl __pnacl_thread_exit_tag
    .tagtype __pnacl_thread_exit_tag i32
__pnacl_thread_exit_tag:

    .text

/* void wasi_thread_start(int tid, struct thread *t): t's first word is its stack top. */
    .globl wasi_thread_start
    .export_name wasi_thread_start, wasi_thread_start
    .type wasi_thread_start, @function
wasi_thread_start:
    .functype wasi_thread_start (i32, i32) -> ()
    local.get 1
    i32.load 0
    global.set __stack_pointer
    try
    local.get 0
    local.get 1
    call __pnacl_thread_main
    catch __pnacl_thread_exit_tag
    drop
    end_try
    end_function

/* void __pnacl_thread_unwind(void): ends the calling thread (see wasi_thread_start). */
    .globl __pnacl_thread_unwind
    .type __pnacl_thread_unwind, @function
__pnacl_thread_unwind:
    .functype __pnacl_thread_unwind () -> ()
    i32.const 0
    throw __pnacl_thread_exit_tag
    unreachable
    end_function

/* Each thread's own (each thread's instance has its own globals; wasi.c): its record,
   the pexe's thread pointer, and the second half of a 64-bit result of LLVM's setjmp
   lowering. */
    .globaltype __pnacl_thread_record, i32
__pnacl_thread_record:
    .globaltype __pnacl_tp, i32
__pnacl_tp:
    .globaltype __pnacl_temp_ret0, i32
__pnacl_temp_ret0:

/* Where a call of a translated function finds the state of the call it resumes, or 0,
   and how many times this thread's calls handed over (src/llvm/resume.rs). */
    .globl __pnacl_resume
    .globaltype __pnacl_resume, i32
__pnacl_resume:
    .globl __pnacl_handovers
    .globaltype __pnacl_handovers, i32
__pnacl_handovers:

/* u32 __pnacl_handover_count(void) */
    .globl __pnacl_handover_count
    .type __pnacl_handover_count, @function
__pnacl_handover_count:
    .functype __pnacl_handover_count () -> (i32)
    global.get __pnacl_handovers
    end_function

/* struct thread *__pnacl_thread(void), void __pnacl_set_thread(struct thread *) */
    .globl __pnacl_thread
    .type __pnacl_thread, @function
__pnacl_thread:
    .functype __pnacl_thread () -> (i32)
    global.get __pnacl_thread_record
    end_function

    .globl __pnacl_set_thread
    .type __pnacl_set_thread, @function
__pnacl_set_thread:
    .functype __pnacl_set_thread (i32) -> ()
    local.get 0
    global.set __pnacl_thread_record
    end_function

/* u32 __pnacl_read_tp(void) (the pexe's llvm.nacl.read.tp), void __pnacl_set_tp(u32) */
    .globl __pnacl_read_tp
    .type __pnacl_read_tp, @function
__pnacl_read_tp:
    .functype __pnacl_read_tp () -> (i32)
    global.get __pnacl_tp
    end_function

    .globl __pnacl_set_tp
    .type __pnacl_set_tp, @function
__pnacl_set_tp:
    .functype __pnacl_set_tp (i32) -> ()
    local.get 0
    global.set __pnacl_tp
    end_function

/* void setTempRet0(u32), u32 getTempRet0(void) */
    .globl setTempRet0
    .type setTempRet0, @function
setTempRet0:
    .functype setTempRet0 (i32) -> ()
    local.get 0
    global.set __pnacl_temp_ret0
    end_function

    .globl getTempRet0
    .type getTempRet0, @function
getTempRet0:
    .functype getTempRet0 () -> (i32)
    global.get __pnacl_temp_ret0
    end_function

/* Memory another thread has grown, with memory.copy and memory.fill. V8 checks these two
   against a size of the memory each thread keeps (plain loads and stores see a growth at
   once), and brings another thread's size up to date only when it next stops to look: a
   thread that copies into a block the allocator has just carved out of memory another
   thread grew traps. memory.size is always up to date, and memory.grow by nothing brings
   the thread's own size up to date. So the runtime and the pexe's code are compiled
   without bulk memory (their copies and fills of unknown length are calls of these), and
   these look first: per thread, the pages the memory had when this thread last brought
   its size up to date (a global: each thread's instance has its own). */
    .globaltype __pnacl_pages_seen, i32
__pnacl_pages_seen:

    .type __pnacl_memory_up_to_date, @function
__pnacl_memory_up_to_date:
    .functype __pnacl_memory_up_to_date () -> ()
    .local i32
    memory.size 0
    local.tee 0
    global.get __pnacl_pages_seen
    i32.ne
    if
    i32.const 0
    memory.grow 0
    drop
    local.get 0
    global.set __pnacl_pages_seen
    end_if
    end_function

    .globl memcpy
    .type memcpy, @function
memcpy:
    .functype memcpy (i32, i32, i32) -> (i32)
    call __pnacl_memory_up_to_date
    local.get 0
    local.get 1
    local.get 2
    memory.copy 0, 0
    local.get 0
    end_function

/* memory.copy copies as if through a buffer: overlaps are as memmove wants them. */
    .globl memmove
    .type memmove, @function
memmove:
    .functype memmove (i32, i32, i32) -> (i32)
    local.get 0
    local.get 1
    local.get 2
    call memcpy
    end_function

    .globl memset
    .type memset, @function
memset:
    .functype memset (i32, i32, i32) -> (i32)
    call __pnacl_memory_up_to_date
    local.get 0
    local.get 1
    local.get 2
    memory.fill 0
    local.get 0
    end_function
