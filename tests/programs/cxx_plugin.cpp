// A PPAPI plugin in C++ (built by pnacl-clang++; tests/ppapi.rs, tests/site.rs), written
// against the C interfaces with declarations of its own (as ppapi/c has them), wrapped in
// small classes as the SDK's ppapi/cpp wrapped them. Each string message is a command to a
// little stack machine; its reply is posted back:
//   push N    -> "ok K" (K values on the stack), or "error: not a number: N"
//   sum       -> the sum of the stack
//   sorted    -> the stack's values in order, by spaces
//   div A B   -> A / B, or "error: division by zero"
//   primes N  -> how many primes are below N, counted on a std::thread
//   anything else -> "error: unknown command: ..."
// Errors are C++ exceptions thrown where they are found and caught around each command.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

// --- ppapi/c, the few declarations this plugin needs ---------------------------------
extern "C" {
typedef int32_t PP_Instance, PP_Resource, PP_Module, PP_Bool;
typedef const void *(*PPB_GetInterface)(const char *name);
enum { PP_VARTYPE_STRING = 5 };
struct PP_Var {
  int32_t type, padding;
  union {
    int32_t as_int;
    double as_double;
    int64_t as_id;
  } value;
};
struct PPB_Var_1_1 {
  void (*AddRef)(struct PP_Var);
  void (*Release)(struct PP_Var);
  struct PP_Var (*VarFromUtf8)(const char *data, uint32_t len);
  const char *(*VarToUtf8)(struct PP_Var, uint32_t *len);
};
struct PPB_Messaging_1_0 {
  void (*PostMessage)(PP_Instance, struct PP_Var);
};
struct PPP_Instance_1_1 {
  PP_Bool (*DidCreate)(PP_Instance, uint32_t, const char *[], const char *[]);
  void (*DidDestroy)(PP_Instance);
  void (*DidChangeView)(PP_Instance, PP_Resource);
  void (*DidChangeFocus)(PP_Instance, PP_Bool);
  PP_Bool (*HandleDocumentLoad)(PP_Instance, PP_Resource);
};
struct PPP_Messaging_1_0 {
  void (*HandleMessage)(PP_Instance, struct PP_Var);
};
struct PP_StartFunctions {
  int32_t (*PPP_InitializeModule)(PP_Module, PPB_GetInterface);
  void (*PPP_ShutdownModule)(void);
  const void *(*PPP_GetInterface)(const char *);
};
struct nacl_irt_ppapihook {
  int (*ppapi_start)(const struct PP_StartFunctions *);
  void (*ppapi_register_thread_creator)(const void *);
};
}
#include <irt.h>  // __nacl_irt_query

// --- a little of ppapi/cpp: the module's browser interfaces, an instance ---------------
namespace pp {

class Module {
 public:
  static Module &get() {
    static Module m;
    return m;
  }
  bool init(PPB_GetInterface get) {
    var_ = static_cast<const PPB_Var_1_1 *>(get("PPB_Var;1.1"));
    messaging_ = static_cast<const PPB_Messaging_1_0 *>(get("PPB_Messaging;1.0"));
    return var_ && messaging_;
  }
  const PPB_Var_1_1 &var() const { return *var_; }
  const PPB_Messaging_1_0 &messaging() const { return *messaging_; }

 private:
  const PPB_Var_1_1 *var_ = nullptr;
  const PPB_Messaging_1_0 *messaging_ = nullptr;
};

class Instance {
 public:
  explicit Instance(PP_Instance id) : id_(id) {}
  virtual ~Instance() = default;
  virtual void HandleMessage(const std::string &message) = 0;
  void PostMessage(const std::string &s) const {
    const PPB_Var_1_1 &v = Module::get().var();
    PP_Var var = v.VarFromUtf8(s.data(), static_cast<uint32_t>(s.size()));
    Module::get().messaging().PostMessage(id_, var);
    v.Release(var);
  }

 private:
  PP_Instance id_;
};

}  // namespace pp

// --- the plugin ---------------------------------------------------------------------------
namespace {

struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

long number(const std::string &word) {
  std::size_t used = 0;
  long n = 0;
  try {
    n = std::stol(word, &used);
  } catch (const std::logic_error &) {  // invalid_argument, out_of_range
    throw CommandError("not a number: " + word);
  }
  if (used != word.size()) throw CommandError("not a number: " + word);
  return n;
}

class Machine : public pp::Instance {
 public:
  explicit Machine(PP_Instance id) : pp::Instance(id) {
    commands_["push"] = [this](std::istream &in) {
      std::string w;
      in >> w;
      stack_.push_back(number(w));
      return "ok " + std::to_string(stack_.size());
    };
    commands_["sum"] = [this](std::istream &) {
      return std::to_string(std::accumulate(stack_.begin(), stack_.end(), 0L));
    };
    commands_["sorted"] = [this](std::istream &) {
      std::vector<long> v = stack_;
      std::sort(v.begin(), v.end());
      std::ostringstream s;
      for (std::size_t k = 0; k < v.size(); k++) s << (k ? " " : "") << v[k];
      return s.str();
    };
    commands_["div"] = [](std::istream &in) {
      std::string a, b;
      in >> a >> b;
      long x = number(a), y = number(b);
      if (y == 0) throw CommandError("division by zero");
      return std::to_string(x / y);
    };
    commands_["primes"] = [](std::istream &in) {
      std::string w;
      in >> w;
      long n = number(w);
      long count = 0;
      std::thread t([n, &count] {
        std::vector<bool> composite(static_cast<std::size_t>(std::max(n, 2L)));
        for (long i = 2; i < n; i++) {
          if (composite[i]) continue;
          count++;
          for (long j = i * i; j < n; j += i) composite[j] = true;
        }
      });
      t.join();
      return std::to_string(count);
    };
  }

  void HandleMessage(const std::string &message) override {
    std::istringstream in(message);
    std::string name;
    in >> name;
    try {
      auto c = commands_.find(name);
      if (c == commands_.end()) throw CommandError("unknown command: " + name);
      PostMessage(c->second(in));
    } catch (const CommandError &e) {
      PostMessage(std::string("error: ") + e.what());
    }
  }

 private:
  std::vector<long> stack_;
  std::map<std::string, std::function<std::string(std::istream &)>> commands_;
};

std::map<PP_Instance, std::unique_ptr<Machine>> instances;

PP_Bool did_create(PP_Instance i, uint32_t, const char *[], const char *[]) {
  instances[i] = std::make_unique<Machine>(i);
  return 1;
}
void did_destroy(PP_Instance i) { instances.erase(i); }
void did_change_view(PP_Instance, PP_Resource) {}
void did_change_focus(PP_Instance, PP_Bool) {}
PP_Bool handle_document_load(PP_Instance, PP_Resource) { return 0; }

void handle_message(PP_Instance i, PP_Var message) {
  auto it = instances.find(i);
  if (it == instances.end() || message.type != PP_VARTYPE_STRING) return;
  uint32_t len = 0;
  const char *s = pp::Module::get().var().VarToUtf8(message, &len);
  it->second->HandleMessage(std::string(s ? s : "", len));
}

const PPP_Instance_1_1 ppp_instance = {did_create, did_destroy, did_change_view,
                                       did_change_focus, handle_document_load};
const PPP_Messaging_1_0 ppp_messaging = {handle_message};

int32_t initialize_module(PP_Module, PPB_GetInterface get) {
  return pp::Module::get().init(get) ? 0 : -1;
}
void shutdown_module() {}
const void *get_interface(const char *name) {
  if (!std::strcmp(name, "PPP_Instance;1.1")) return &ppp_instance;
  if (!std::strcmp(name, "PPP_Messaging;1.0")) return &ppp_messaging;
  return nullptr;
}

}  // namespace

int main() {
  static const PP_StartFunctions start = {initialize_module, shutdown_module, get_interface};
  nacl_irt_ppapihook hook;
  if (__nacl_irt_query("nacl-irt-ppapihook-0.1", &hook, sizeof hook) != sizeof hook) return 1;
  return hook.ppapi_start(&start);
}
