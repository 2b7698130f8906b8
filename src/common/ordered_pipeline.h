// OrderedPipeline: the caller's thread submits batches in input order, worker threads transform
// them in any order, and the caller consumes the transformed batches strictly in submission order.
// Output therefore does not depend on the number of threads or on scheduling. At most
// `max_in_flight` batches exist at once, so memory stays bounded however long the input is.
// With threads == 0 there are no workers: Submit transforms and consumes inline (same code path).
// An exception thrown by `work` on a worker thread (std::bad_alloc above all) is kept with its
// batch and rethrown on the submitting thread when that batch's turn to be consumed comes, so every
// thread's failure reaches the caller exactly as with threads == 0 (issue 35, item 5: before, a
// worker's bad_alloc called std::terminate). Batches not yet started are then dropped.
// A batch may be submitted in parts (Submit(batch, parts)): its work is then `parts` calls
// work(worker, batch, part), taken by whichever workers are free in part order, so all workers
// share the oldest batch instead of each taking a batch of its own, and the rows of the input are
// worked on close to input order (issue 30: with a batch per worker, a conversation's next turn
// was often cut on one worker while its previous turn was still waiting in the other worker's
// batch, so the shared conversation memos missed and the turn was cut and digested again). Once
// every part is done, finish(worker, batch) runs on the worker that did the last one.
// Hand-written: a bounded, order-preserving map over a thread pool is ~80 lines here, and neither
// the standard library nor the Debian packages we use (no TBB) offer one.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ltl {

template <typename Batch>
class OrderedPipeline {
 public:
  // work(worker, batch) runs on worker thread `worker` (0..threads-1; 0 when inline) and may only
  // touch the batch and that worker's own state. consume(batch) runs on the submitting thread.
  OrderedPipeline(size_t threads, std::function<void(size_t, Batch&)> work,
                  std::function<void(Batch&)> consume, size_t max_in_flight = 0)
      : OrderedPipeline(
            threads, [w = std::move(work)](size_t worker, Batch& b, size_t) { w(worker, b); },
            nullptr, std::move(consume), max_in_flight) {}
  // Batches submitted in parts: work(worker, batch, part) for each part, then finish(worker,
  // batch) (may be empty) once, on the worker that did the last part. Parts of one batch run
  // concurrently: they may only touch their own part of the batch and their worker's state.
  OrderedPipeline(size_t threads, std::function<void(size_t, Batch&, size_t)> work,
                  std::function<void(size_t, Batch&)> finish, std::function<void(Batch&)> consume,
                  size_t max_in_flight = 0)
      : work_(std::move(work)),
        finish_(std::move(finish)),
        consume_(std::move(consume)),
        max_in_flight_(max_in_flight ? max_in_flight : 4 * threads + 2) {
    try {
      for (size_t w = 0; w < threads; ++w) workers_.emplace_back([this, w] { WorkerLoop(w); });
    } catch (...) {  // a thread the system refused: stop the ones started, then report it
      StopWorkers();
      throw;
    }
  }
  OrderedPipeline(const OrderedPipeline&) = delete;
  OrderedPipeline& operator=(const OrderedPipeline&) = delete;
  ~OrderedPipeline() { StopWorkers(); }

  // parts = 0 consumes the batch without working on it.
  void Submit(Batch batch, size_t parts = 1) {
    if (workers_.empty()) {
      for (size_t p = 0; p < parts; ++p) work_(0, batch, p);
      if (parts > 0 && finish_) finish_(0, batch);
      consume_(batch);
      return;
    }
    auto slot = std::make_shared<Slot>();
    slot->batch = std::move(batch);
    slot->parts = parts;
    slot->done = parts == 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      in_flight_.push_back(slot);
      if (parts > 0) jobs_.push_back(slot.get());
    }
    if (parts > 1)
      work_ready_.notify_all();
    else if (parts == 1)
      work_ready_.notify_one();
    Drain(/*all=*/false);
  }

  // Consumes every batch still in flight. Call after the last Submit; batches submitted after it
  // start a new run of the same workers (a read of the next file: ingest/gateway_readers.h).
  void Finish() {
    if (!workers_.empty()) Drain(/*all=*/true);
  }

 private:
  struct Slot {
    Batch batch;
    size_t parts = 1;
    size_t next_part = 0;  // the next part a worker takes
    size_t finished = 0;   // parts done
    bool done = false;
    std::exception_ptr error;  // what `work` threw on a worker (the first), rethrown when consumed
  };

  // Lets the workers finish the batch in hand, drops the ones not started (after a normal Finish
  // there are none; during unwinding from an error they would only be wasted work) and joins.
  void StopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      jobs_.clear();
    }
    work_ready_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void WorkerLoop(size_t w) {
    for (;;) {
      Slot* slot;
      size_t part;
      bool skip;  // an earlier part of this batch failed: the batch is dropped when consumed
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_ready_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stop_ and nothing left
        slot = jobs_.front();
        part = slot->next_part++;
        if (slot->next_part == slot->parts) jobs_.pop_front();
        skip = slot->error != nullptr;
      }
      std::exception_ptr error;
      if (!skip) {
        try {
          work_(w, slot->batch, part);
        } catch (...) {
          error = std::current_exception();
        }
      }
      bool last;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (error && !slot->error) slot->error = error;
        last = ++slot->finished == slot->parts;
        skip = slot->error != nullptr;
      }
      if (!last) continue;
      // The other parts are done: this worker alone touches the batch until it is marked done.
      if (finish_ && !skip) {
        try {
          finish_(w, slot->batch);
        } catch (...) {
          error = std::current_exception();
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (error && !slot->error) slot->error = error;
        slot->done = true;
      }
      done_.notify_all();
    }
  }

  // Consumes finished batches at the head, in order. Waits for the head while more than
  // max_in_flight_ batches are outstanding (or, with all, until none is).
  void Drain(bool all) {
    for (;;) {
      std::shared_ptr<Slot> head;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (in_flight_.empty()) return;
        const bool must_wait = all || in_flight_.size() > max_in_flight_;
        if (!in_flight_.front()->done) {
          if (!must_wait) return;
          done_.wait(lock, [&] { return in_flight_.front()->done; });
        }
        head = std::move(in_flight_.front());
        in_flight_.pop_front();
      }
      if (head->error) std::rethrow_exception(head->error);
      consume_(head->batch);
    }
  }

  std::function<void(size_t, Batch&, size_t)> work_;
  std::function<void(size_t, Batch&)> finish_;
  std::function<void(Batch&)> consume_;
  size_t max_in_flight_;
  std::mutex mu_;
  std::condition_variable work_ready_, done_;
  std::deque<std::shared_ptr<Slot>> in_flight_;  // submission order
  std::deque<Slot*> jobs_;                       // not yet picked by a worker
  bool stop_ = false;
  std::vector<std::thread> workers_;  // last member: started after everything above exists
};

}  // namespace ltl
