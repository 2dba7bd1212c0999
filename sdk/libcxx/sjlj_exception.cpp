// C++ exceptions in a pexe: the unwinder of the setjmp-based frames the ABI simplification
// lowers `invoke` to (src/simplify/eh.rs), in place of libc++abi's table-driven personality.
//
// Each function that invokes has one frame (struct frame below, laid out as eh.rs makes
// it). Around each invoke the function pushes its frame on this thread's list
// (__pnacl_eh_stack), naming the clauses of the invoke's landing pad, and calls a helper
// that setjmps into the frame's buffer and makes the call; the frame is popped after. A
// throw (_Unwind_RaiseException) first searches the list for a frame whose clauses catch
// the exception; if none does, it returns and __cxa_throw terminates, with every frame
// still in place (as the table-driven unwinder's search phase does). Otherwise it jumps to
// the innermost frame, with the selector its clauses give (0 where they do not catch: a
// cleanup), and that landing pad runs; one that does not handle the exception ends in
// __pnacl_eh_resume, which jumps to the next frame out.
//
// The tables, which eh.rs writes from every landing pad of the program:
//   __pnacl_eh_type_table[k - 1]: the type_info of type id k (null: catch-all).
//   __pnacl_eh_action_table[l - 1]: the clause list l: {clause, next list or 0}; a clause
//     > 0 catches type id `clause`; < 0 is an exception specification whose type ids
//     start at __pnacl_eh_filter_table[-clause - 1], ended by 0.

#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <exception>
#include <typeinfo>

#include "cxa_exception.h"
#include "cxa_handlers.h"
#include "private_typeinfo.h"
#include "unwind.h"

using namespace __cxxabiv1;

namespace {

// What eh.rs allocates in each function that invokes: 1024 bytes of jmp_buf, then the
// list's link and the landing pad's clause list, then what the landing pad reads.
struct frame {
  jmp_buf buf;
  frame *next;
  int32_t clause_list;
  _Unwind_Exception *exception;
  int32_t selector;
};
static_assert(sizeof(jmp_buf) == 1024, "PNaCl's jmp_buf is 1024 bytes");
static_assert(__builtin_offsetof(frame, next) == 1024, "frame layout (eh.rs)");
static_assert(__builtin_offsetof(frame, clause_list) == 1028, "frame layout (eh.rs)");
static_assert(__builtin_offsetof(frame, exception) == 1032, "frame layout (eh.rs)");
static_assert(__builtin_offsetof(frame, selector) == 1036, "frame layout (eh.rs)");

struct action {
  int32_t clause;
  int32_t next;
};

}  // namespace

extern "C" {
// This thread's innermost frame.
__thread frame *__pnacl_eh_stack;
// Written by eh.rs (a program that never invokes has them empty).
extern const __shim_type_info *const __pnacl_eh_type_table[];
extern const action __pnacl_eh_action_table[];
extern const int32_t __pnacl_eh_filter_table[];
}

static bool native(const _Unwind_Exception *e) {
  return (e->exception_class & get_vendor_and_language) ==
         (kOurExceptionClass & get_vendor_and_language);
}

static __cxa_exception *header(_Unwind_Exception *e) {
  return reinterpret_cast<__cxa_exception *>(e + 1) - 1;
}

// The thrown object (a dependent exception's primary one).
static void *thrown_object(_Unwind_Exception *e) {
  void *p = e + 1;
  if (e->exception_class == kOurDependentExceptionClass)
    p = (reinterpret_cast<__cxa_dependent_exception *>(p) - 1)->primaryException;
  return p;
}

// Whether catch type `t` (null: catch-all) catches `e`; `adjusted` gets the object as
// the handler sees it.
static bool catches(const __shim_type_info *t, _Unwind_Exception *e, void *&adjusted) {
  adjusted = native(e) ? thrown_object(e) : nullptr;
  if (t == nullptr) return true;
  if (!native(e)) return false;
  const __shim_type_info *thrown =
      static_cast<const __shim_type_info *>(header(e)->exceptionType);
  return thrown != nullptr && t->can_catch(thrown, adjusted);
}

// Whether the exception specification of clause `clause` (< 0) lists a type that
// catches `e`.
static bool specification_allows(int32_t clause, _Unwind_Exception *e) {
  for (const int32_t *id = &__pnacl_eh_filter_table[-clause - 1]; *id > 0; id++) {
    void *unused;
    if (native(e) && __pnacl_eh_type_table[*id - 1] != nullptr &&
        catches(__pnacl_eh_type_table[*id - 1], e, unused))
      return true;
  }
  return false;
}

// The same for a std::bad_exception.
static bool specification_allows_bad_exception(int32_t clause) {
  const auto *bad = static_cast<const __shim_type_info *>(&typeid(std::bad_exception));
  for (const int32_t *id = &__pnacl_eh_filter_table[-clause - 1]; *id > 0; id++) {
    std::bad_exception object;
    void *adjusted = &object;
    const __shim_type_info *t = __pnacl_eh_type_table[*id - 1];
    if (t != nullptr && t->can_catch(bad, adjusted)) return true;
  }
  return false;
}

// The selector frame clause list `list` gives `e`: a catching clause's type id, an
// exception specification's (negative) index when `e` breaks it, 0 if nothing catches.
static int32_t select(int32_t list, _Unwind_Exception *e, void *&adjusted) {
  for (int32_t l = list; l > 0; l = __pnacl_eh_action_table[l - 1].next) {
    int32_t clause = __pnacl_eh_action_table[l - 1].clause;
    if (clause > 0) {
      if (catches(__pnacl_eh_type_table[clause - 1], e, adjusted)) return clause;
    } else if (clause < 0 && !specification_allows(clause, e)) {
      adjusted = native(e) ? thrown_object(e) : nullptr;
      return clause;
    }
  }
  return 0;
}

// Control to the innermost frame's landing pad, with the selector its clauses give.
[[noreturn]] static void jump(frame *f, _Unwind_Exception *e) {
  void *adjusted = nullptr;
  int32_t sel = select(f->clause_list, e, adjusted);
  if (sel != 0 && native(e)) {
    header(e)->handlerSwitchValue = sel;
    header(e)->adjustedPtr = adjusted;
  }
  f->exception = e;
  f->selector = sel;
  __pnacl_eh_stack = f->next;
  longjmp(f->buf, 1);
}

extern "C" {

_Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception *e) {
  // The search: a frame that catches, or nothing is run at all.
  bool found = false;
  for (frame *f = __pnacl_eh_stack; f && !found; f = f->next) {
    void *adjusted;
    found = select(f->clause_list, e, adjusted) != 0;
  }
  if (!found) return _URC_END_OF_STACK;
  jump(__pnacl_eh_stack, e);
}

_Unwind_Reason_Code _Unwind_Resume_or_Rethrow(_Unwind_Exception *e) {
  return _Unwind_RaiseException(e);
}

// A landing pad that did not handle the exception (`resume`): on to the next frame out.
[[noreturn]] void __pnacl_eh_resume(_Unwind_Exception *e) {
  frame *f = __pnacl_eh_stack;
  if (f == nullptr) {
    // The search found a handler, so this is not reached by a C++ exception; a
    // foreign one ends as an uncaught exception does.
    __cxa_begin_catch(e);
    std::terminate();
  }
  jump(f, e);
}

void _Unwind_Resume(_Unwind_Exception *e) { __pnacl_eh_resume(e); }

void _Unwind_DeleteException(_Unwind_Exception *e) {
  if (e->exception_cleanup) e->exception_cleanup(_URC_FOREIGN_EXCEPTION_CAUGHT, e);
}

// A landing pad's call when an exception breaks its function's exception specification
// (a dynamic one, `throw(A, B)`, before C++17), as [except.unexpected] says: the
// exception is caught and the unexpected handler (the one in force when it was thrown)
// runs. If the handler throws an exception the specification allows, that one goes on
// from the function's caller; if not, and the specification allows std::bad_exception,
// a std::bad_exception does; otherwise the program terminates with the terminate handler
// in force at the throw. The broken exception is destroyed before the search goes on.
[[noreturn]] void __cxa_call_unexpected(void *arg) {
  auto *e = static_cast<_Unwind_Exception *>(arg);
  __cxa_begin_catch(e);
  __cxa_exception *h = native(e) ? header(e) : nullptr;
  std::terminate_handler terminate = h ? h->terminateHandler : std::get_terminate();
  std::unexpected_handler unexpected = h ? h->unexpectedHandler : std::get_unexpected();
  // The specification's clause, which `jump` left as the selector (a foreign exception
  // has none: only termination is left for it).
  int32_t clause = h ? h->handlerSwitchValue : 0;
  std::exception_ptr next;
  bool bad = false;
  try {
    std::__unexpected(unexpected);
  } catch (...) {
    if (clause < 0) {
      __cxa_exception *thrown = __cxa_get_globals_fast()->caughtExceptions;
      if (thrown != h && specification_allows(clause, &thrown->unwindHeader))
        next = std::current_exception();
      else
        bad = specification_allows_bad_exception(clause);
    }
  }
  if (next || bad) {
    __cxa_end_catch();
    if (next) std::rethrow_exception(next);
    throw std::bad_exception();
  }
  std::__terminate(terminate);
}

// Functions keep the personality clang names; nothing calls it in a pexe.
_Unwind_Reason_Code __gxx_personality_v0(int, _Unwind_Action, uint64_t, _Unwind_Exception *,
                                         _Unwind_Context *) {
  std::terminate();
}

}  // extern "C"
