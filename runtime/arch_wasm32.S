/* WebAssembly: the entry of a thread wasi-threads spawns, and the unwinding that ends it.
   (A new thread's instance starts with its stack pointer where the main thread's is:
   it must be set before any C runs.) */

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
