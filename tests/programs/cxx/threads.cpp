#include <atomic>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>
#include <vector>

#include "shapes.h"

namespace {
struct Announce {
  Announce() { std::printf("static constructor of threads.cpp\n"); }
  ~Announce() { std::printf("static destructor of threads.cpp\n"); }
} announce;

thread_local int calls = 0;  // each thread its own
std::atomic<long> total{0};
std::mutex m;
std::condition_variable cv;
int stage = 0;

int work(int id, int n) {
  for (int i = 1; i <= n; i++) {
    calls++;
    total.fetch_add(i * id, std::memory_order_relaxed);
  }
  return calls;
}
}  // namespace

// Four threads sum into an atomic, each counts its calls in a thread_local, and they
// take turns (a mutex and a condition variable) to report in order.
int run_threads(std::ostream &os) {
  std::vector<std::thread> ts;
  std::vector<std::string> lines(4);
  for (int id = 0; id < 4; id++) {
    ts.emplace_back([id, &lines] {
      int mine = work(id + 1, 1000 * (id + 1));
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [id] { return stage == id; });
      std::ostringstream s;
      s << "thread " << id << " made " << mine << " calls";
      lines[id] = s.str();
      stage++;
      cv.notify_all();
    });
  }
  for (auto &t : ts) t.join();
  for (auto &l : lines) os << l << "\n";
  os << "main thread made " << calls << " calls; total " << total.load() << "\n";
  // An exception thrown and caught on another thread (its own list of frames).
  std::string msg;
  std::thread t([&msg] {
    try {
      Counter<int> c;
      throw BadSize("in a thread", 2.5);
    } catch (const ShapeError &e) {
      msg = e.what();
    }
  });
  t.join();
  os << "thread said: " << msg << "\n";
  return static_cast<int>(total.load() % 1000);
}
