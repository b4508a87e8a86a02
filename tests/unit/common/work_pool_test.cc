// common/work_pool.h: every task run once, in order where the pool promises it; the first error stops the
// rest and reaches the caller once; nothing hangs when a task throws while a producer waits on a full queue;
// a pool destroyed with work queued drops it. Built in the TSan set (RAILTUNE_TESTS=threads).
#include "common/work_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace railtune {
namespace {

// A task that blocks its worker until open() is called, so that a test decides what is queued behind it.
class Gate {
 public:
  void wait() { opened_.wait(); }
  void open() { promise_.set_value(); }

 private:
  std::promise<void> promise_;
  std::shared_future<void> opened_{promise_.get_future().share()};
};

std::string messageOf(WorkPool& pool) {
  try {
    pool.finish();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(WorkPool, RunsEveryTaskOnceWithItsResultInItsPlace) {
  constexpr size_t kTasks = 2000;
  std::vector<size_t> results(kTasks, 0);
  WorkPool pool(4, 8);  // a queue far shorter than the tasks: submit() waits for room again and again
  for (size_t i = 0; i < kTasks; ++i) ASSERT_TRUE(pool.submit([&results, i] { results[i] += i * i + 1; }));
  pool.finish();
  for (size_t i = 0; i < kTasks; ++i) ASSERT_EQ(results[i], i * i + 1) << i;
}

TEST(WorkPool, OneWorkerRunsTasksInTheOrderSubmitted) {
  std::vector<int> order;  // touched by the one worker only
  WorkPool pool(1, 3);
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(pool.submit([&order, i] { order.push_back(i); }));
  pool.finish();
  ASSERT_EQ(order.size(), 500u);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(WorkPool, FirstErrorDropsTheQueuedTasksAndIsRethrown) {
  Gate gate;
  std::vector<int> ran;
  WorkPool pool(1, 16);
  ASSERT_TRUE(pool.submit([&] {
    gate.wait();
    ran.push_back(0);
  }));
  ASSERT_TRUE(pool.submit([&] { ran.push_back(1); }));
  ASSERT_TRUE(pool.submit([] { throw std::runtime_error("task 2 failed"); }));
  for (int i = 3; i < 10; ++i) ASSERT_TRUE(pool.submit([&ran, i] { ran.push_back(i); }));  // queued behind it
  gate.open();
  EXPECT_EQ(messageOf(pool), "task 2 failed");
  EXPECT_EQ(ran, (std::vector<int>{0, 1}));  // nothing queued after the failed task started
  EXPECT_TRUE(pool.failed());
  EXPECT_FALSE(pool.submit([&] { ran.push_back(99); }));
}

TEST(WorkPool, ManyFailingTasksReachTheCallerAsOneError) {
  std::atomic<int> thrown{0};
  WorkPool pool(4, 4);
  for (int i = 0; i < 200; ++i) {
    if (!pool.submit([&thrown, i] {
          ++thrown;
          throw std::runtime_error("failure " + std::to_string(i));
        }))
      break;
  }
  const std::string message = messageOf(pool);
  EXPECT_EQ(message.rfind("failure ", 0), 0u) << message;
  EXPECT_GE(thrown.load(), 1);
  EXPECT_LE(thrown.load(), 4);          // at most the tasks already running when the first threw
  EXPECT_EQ(messageOf(pool), message);  // finish() again: the same one error
}

TEST(WorkPool, ProducerWaitingOnAFullQueueIsReleasedWhenATaskThrows) {
  Gate gate;
  std::atomic<int> submitted{0}, ranAfter{0};
  WorkPool pool(1, 1);
  ASSERT_TRUE(pool.submit([&] {
    gate.wait();
    throw std::runtime_error("write failed");
  }));
  std::thread producer([&] {  // fills the one place, then waits for room that the failure must give up
    while (pool.submit([&] { ++ranAfter; })) ++submitted;
  });
  while (submitted.load() == 0) std::this_thread::yield();
  gate.open();
  producer.join();  // a hang here is the failure this test is about
  EXPECT_EQ(messageOf(pool), "write failed");
  EXPECT_EQ(submitted.load(), 1);
  EXPECT_EQ(ranAfter.load(), 0);
}

TEST(WorkPool, DestroyedWithWorkQueuedDropsItUnstarted) {
  Gate gate;
  std::atomic<int> ran{0};
  auto pool = std::make_unique<WorkPool>(1, 8);
  ASSERT_TRUE(pool->submit([&] { gate.wait(); }));
  auto token = std::make_shared<int>(0);  // held by each queued task: expired once all are dropped
  const std::weak_ptr<int> watch = token;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pool->submit([&ran, token] { ++ran; }));
  token.reset();
  std::thread destroyer([&] { pool.reset(); });  // joins the worker, still held by the gate
  while (!watch.expired()) std::this_thread::yield();
  gate.open();
  destroyer.join();
  EXPECT_EQ(ran.load(), 0);
}

TEST(WorkPool, DestroyedWithoutFinishAfterAnErrorDoesNotThrow) {
  EXPECT_NO_THROW({
    WorkPool pool(2, 2);
    pool.submit([] { throw std::runtime_error("dropped"); });
  });
}

TEST(ParallelFor, EveryIndexOnce) {
  constexpr size_t kItems = 5000;
  std::vector<std::atomic<int>> seen(kItems);
  parallelFor(
      kItems, [&](size_t i) { ++seen[i]; }, 4);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  std::vector<int> one;
  parallelFor(
      3, [&](size_t i) { one.push_back(static_cast<int>(i)); }, 1);  // on the calling thread, in order
  EXPECT_EQ(one, (std::vector<int>{0, 1, 2}));
  parallelFor(0, [](size_t) { FAIL(); });
}

TEST(ParallelFor, FirstErrorStopsTheRestAndIsRethrown) {
  constexpr size_t kItems = 100000;
  std::atomic<bool> thrown{false};
  std::atomic<size_t> ran{0};
  try {
    parallelFor(
        kItems,
        [&](size_t i) {
          if (i == 0) {
            thrown = true;
            throw std::runtime_error("index 0");
          }
          while (!thrown) std::this_thread::yield();  // every other index runs after the failure
          // Each index takes 100 us, so that the other worker outruns the stop only if the failing thread
          // stalls for 10 s (a loaded 2-core machine under TSan stalls threads for milliseconds, not seconds);
          // without the stop it runs them all (10 s) and the count below fails.
          std::this_thread::sleep_for(std::chrono::microseconds(100));
          ++ran;
        },
        2);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 0");
  }
  // Without the stop the other worker would run every index left; with it, those it took before it saw the
  // failure (a handful).
  EXPECT_LT(ran.load(), kItems - 1);
  try {
    parallelFor(
        5,
        [](size_t i) {
          if (i == 2) throw std::runtime_error("inline");
        },
        1);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "inline");
  }
}

}  // namespace
}  // namespace railtune
