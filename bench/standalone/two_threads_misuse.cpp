// bench/standalone/two_threads_misuse.cpp: what a user gets who calls a
// single-threaded pool<T> from two threads at once (a data race: undefined
// behaviour), with checks::off and with checks::hardened. Each trial runs in
// a child process: two threads each create ROUNDS elements and destroy them
// again, in batches of 64, on one shared pool. The parent tallies how each
// child ended: usage_error thrown (detected), a signal (crash), a pool that
// fails validate() or lost elements (silent corruption), or clean (the race
// happened not to corrupt anything it can see). Needs 2 cores. Built by hand:
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/two_threads_misuse.cpp -o /tmp/misuse -pthread
//   /tmp/misuse 20      (trials per policy; default 20)
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

#include <travpool/pool.hpp>

namespace {

struct element {
  std::uint64_t a, b, c;
};
constexpr int rounds = 200'000;

enum outcome { clean = 0, detected = 3, corrupt = 4, other_error = 5 };

template <class Pool>
[[noreturn]] void child() {
  Pool pool;
  std::atomic<bool> caught{false};
  std::atomic<int> ready{0};
  auto work = [&] {
    std::vector<element*> mine;
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    try {
      for (int r = 0; r < rounds; r += 64) {
        for (int k = 0; k < 64; ++k) mine.push_back(pool.create(element{1, 2, 3}));
        for (element* e : mine) pool.destroy(e);
        mine.clear();
      }
    } catch (const travpool::usage_error&) {
      caught.store(true);
    }
  };
  std::thread t(work);
  work();
  t.join();
  if (caught.load()) std::_Exit(detected);
  try {
    pool.validate();
  } catch (const std::exception&) {
    std::_Exit(corrupt);
  }
  std::_Exit(pool.empty() ? clean : corrupt);
}

template <class Pool>
void trials(const char* name, int n) {
  int tally[4] = {0, 0, 0, 0};  // detected, crashed, corrupt, clean
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    if (pid == 0) child<Pool>();
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
      ++tally[1];
    else if (WEXITSTATUS(status) == detected)
      ++tally[0];
    else if (WEXITSTATUS(status) == clean)
      ++tally[3];
    else
      ++tally[2];
  }
  std::printf("%-18s trials %3d: usage_error %3d, crashed %3d, corrupt or lost %3d, no damage seen %3d\n", name, n,
              tally[0], tally[1], tally[2], tally[3]);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20;
  trials<travpool::basic_pool<element, travpool::checks::off>>("checks::off", n);
  trials<travpool::basic_pool<element, travpool::checks::hardened>>("checks::hardened", n);
}
