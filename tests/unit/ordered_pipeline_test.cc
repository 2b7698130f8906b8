// OrderedPipeline: batches are consumed in submission order whatever the thread count and however
// long each batch takes, every batch is transformed exactly once, and in-flight batches stay
// bounded.
#include "common/ordered_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

#include "common/parallel_jobs.h"

namespace ltl {
namespace {

struct Batch {
  int seq = 0;
  std::vector<int> values;
  int transformed_by = -1;
};

TEST(OrderedPipeline, ConsumesInSubmissionOrderForAnyThreadCount) {
  for (size_t threads : {0u, 1u, 3u, 8u}) {
    std::vector<int> consumed;
    std::atomic<int> transforms{0};
    std::atomic<int> live{0}, max_live{0};
    {
      OrderedPipeline<Batch> p(
          threads,
          [&](size_t w, Batch& b) {
            // Uneven work: early batches are the slow ones, so later ones finish first.
            volatile uint64_t x = 0;
            for (int i = 0; i < (500 - b.seq) * 200; ++i) x = x + static_cast<uint64_t>(i);
            for (int& v : b.values) v *= 2;
            b.transformed_by = static_cast<int>(w);
            ++transforms;
          },
          [&](Batch& b) {
            ASSERT_EQ(b.values.size(), 3u);
            EXPECT_EQ(b.values[0], 2 * b.seq);
            EXPECT_GE(b.transformed_by, 0);
            consumed.push_back(b.seq);
            --live;
          },
          /*max_in_flight=*/6);
      for (int s = 0; s < 500; ++s) {
        Batch b;
        b.seq = s;
        b.values = {s, s + 1, s + 2};
        int now = ++live;
        int prev = max_live.load();
        while (now > prev && !max_live.compare_exchange_weak(prev, now)) {
        }
        p.Submit(std::move(b));
      }
      p.Finish();
    }
    ASSERT_EQ(consumed.size(), 500u) << threads;
    for (int s = 0; s < 500; ++s) ASSERT_EQ(consumed[s], s) << threads;
    EXPECT_EQ(transforms.load(), 500);
    // Submitted but not yet consumed: at most max_in_flight + the one being submitted.
    EXPECT_LE(max_live.load(), 7) << threads;
  }
}

// Issue 35, item 5: a worker's std::bad_alloc called std::terminate (exit 134, a core dump with
// prompt text) while --threads 1 ended cleanly. It must reach the submitting thread as the same
// exception, in order: every batch before the failing one is consumed, none after it.
// The workers of one pipeline serve several runs (the files of a gateway read, one after
// another): after Finish every batch of the run is consumed, and the next run's are consumed in
// their own order.
TEST(OrderedPipeline, SubmitsAfterFinishStartAnotherRun) {
  for (size_t threads : {0u, 2u}) {
    std::vector<int> consumed;
    OrderedPipeline<Batch> p(
        threads, [](size_t, Batch& b) { b.values.push_back(b.seq * 3); },
        [&](Batch& b) {
          ASSERT_EQ(b.values.size(), 1u);
          EXPECT_EQ(b.values[0], b.seq * 3);
          consumed.push_back(b.seq);
        });
    int seq = 0;
    for (int run = 0; run < 3; ++run) {
      for (int k = 0; k < 40; ++k) {
        Batch b;
        b.seq = seq++;
        p.Submit(std::move(b));
      }
      p.Finish();
      ASSERT_EQ(consumed.size(), static_cast<size_t>(seq)) << threads;
    }
    for (int k = 0; k < seq; ++k) EXPECT_EQ(consumed[static_cast<size_t>(k)], k) << threads;
  }
}

TEST(OrderedPipeline, WorkerExceptionReachesTheCallerInOrder) {
  for (size_t threads : {0u, 1u, 3u, 8u}) {
    std::vector<int> consumed;
    bool caught = false;
    try {
      OrderedPipeline<Batch> p(
          threads,
          [&](size_t, Batch& b) {
            if (b.seq == 37) throw std::bad_alloc();
          },
          [&](Batch& b) { consumed.push_back(b.seq); }, /*max_in_flight=*/4);
      for (int s = 0; s < 200; ++s) {
        Batch b;
        b.seq = s;
        p.Submit(std::move(b));
      }
      p.Finish();
    } catch (const std::bad_alloc&) {
      caught = true;
    }
    EXPECT_TRUE(caught) << threads;
    ASSERT_EQ(consumed.size(), 37u) << threads;
    for (int s = 0; s < 37; ++s) EXPECT_EQ(consumed[s], s) << threads;
  }
}

// Batches in parts (issue 30: the workers share the oldest batch row by row): every part is worked
// exactly once, finish runs once per batch after all of its parts, and batches are consumed in
// order whatever the thread count; a batch of 0 parts is consumed untouched.
TEST(OrderedPipeline, PartsAreEachWorkedOnceThenFinishedThenConsumedInOrder) {
  for (size_t threads : {0u, 1u, 2u, 3u, 8u}) {
    std::vector<int> consumed;
    {
      OrderedPipeline<Batch> p(
          threads,
          [&](size_t, Batch& b, size_t part) {
            volatile uint64_t x = 0;  // uneven parts: later ones may finish first
            for (size_t i = 0; i < (part % 7) * 300; ++i) x = x + i;
            b.values[part] += 1;  // each part touches only its own element
          },
          [&](size_t w, Batch& b) {
            for (int v : b.values) ASSERT_EQ(v, b.seq + 1) << "a part ran more or less than once";
            EXPECT_EQ(b.transformed_by, -1) << "finish ran twice";
            b.transformed_by = static_cast<int>(w);
          },
          [&](Batch& b) {
            if (b.values.empty()) {
              EXPECT_EQ(b.transformed_by, -1);  // no parts: neither worked nor finished
            } else {
              EXPECT_GE(b.transformed_by, 0);
            }
            consumed.push_back(b.seq);
          },
          /*max_in_flight=*/3);
      for (int s = 0; s < 300; ++s) {
        Batch b;
        b.seq = s;
        const size_t parts = static_cast<size_t>(s % 50);
        b.values.assign(parts, s);
        p.Submit(std::move(b), parts);
      }
      p.Finish();
    }
    ASSERT_EQ(consumed.size(), 300u) << threads;
    for (int s = 0; s < 300; ++s) ASSERT_EQ(consumed[s], s) << threads;
  }
}

TEST(OrderedPipeline, PartExceptionReachesTheCallerInOrder) {
  for (size_t threads : {0u, 2u, 8u}) {
    std::vector<int> consumed;
    std::atomic<int> finished_bad{0};
    bool caught = false;
    try {
      OrderedPipeline<Batch> p(
          threads,
          [&](size_t, Batch& b, size_t part) {
            if (b.seq == 21 && part == 5) throw std::bad_alloc();
          },
          [&](size_t, Batch& b) {
            if (b.seq == 21) ++finished_bad;
          },
          [&](Batch& b) { consumed.push_back(b.seq); }, /*max_in_flight=*/4);
      for (int s = 0; s < 100; ++s) {
        Batch b;
        b.seq = s;
        p.Submit(std::move(b), 10);
      }
      p.Finish();
    } catch (const std::bad_alloc&) {
      caught = true;
    }
    EXPECT_TRUE(caught) << threads;
    EXPECT_EQ(finished_bad.load(), 0) << threads;  // a failed batch is not finished
    ASSERT_EQ(consumed.size(), 21u) << threads;
    for (int s = 0; s < 21; ++s) EXPECT_EQ(consumed[s], s) << threads;
  }
}

TEST(RunParallel, JobExceptionIsRethrownOnTheCaller) {
  for (unsigned threads : {1u, 2u, 8u}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(RunParallel(1000, threads,
                             [&](size_t i) {
                               ++ran;
                               if (i == 5) throw std::bad_alloc();
                             }),
                 std::bad_alloc)
        << threads;
    EXPECT_GE(ran.load(), 6) << threads;
  }
  EXPECT_THROW(RunParallel(10, 4,
                           [](size_t i) {
                             if (i == 9) throw std::runtime_error("x");
                           }),
               std::runtime_error);
}

}  // namespace
}  // namespace ltl
