#pragma once
// task<T>: the coroutine type of every weave operation.
//
// A task is lazy (it runs only when awaited or started by a scheduler),
// move-only, and owns its frame. Awaiting a task transfers control to it
// symmetrically and the finished task transfers straight back to its awaiter,
// so a chain of nested tasks costs one jump per level and never grows the
// native stack. An exception thrown inside a task is rethrown in its awaiter.
// Frames come from the thread's frame_pool, so starting a task does not
// allocate on the heap once the pool is warm.

#include <concepts>
#include <coroutine>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "weave/assert.hpp"
#include "weave/exec/frame_pool.hpp"

// Symmetric transfer is a tail call in optimized builds. Under AddressSanitizer
// and ThreadSanitizer the compilers do not make it one, and a coroutine that
// awaits many tasks that finish without suspending (a long transaction over
// cached data) would grow the stack by frames at every await until it
// overflows. There, an awaited task is run by a plain call instead, and one
// that finishes inline returns to that call rather than transferring.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WEAVE_BOUNDED_TRANSFER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WEAVE_BOUNDED_TRANSFER 1
#endif
#endif
#ifndef WEAVE_BOUNDED_TRANSFER
#define WEAVE_BOUNDED_TRANSFER 0
#endif

namespace weave {

template <class T = void>
class task;

namespace detail {

// The handle that resumes nothing, for a finished task with no awaiter.
// Clang's builtin is a constant it can see through: where a task is inlined
// into its caller the "resume" of it vanishes, and with it an opaque call that
// would make the caller reload everything it keeps in memory. libstdc++'s
// std::noop_coroutine() is opaque to clang.
inline std::coroutine_handle<> resume_nothing() noexcept {
#if defined(__clang__)
  return std::coroutine_handle<>::from_address(__builtin_coro_noop());
#else
  return std::noop_coroutine();
#endif
}

struct suspend_to_scheduler;

template <class T>
inline constexpr bool is_task = false;
template <class T>
inline constexpr bool is_task<task<T>> = true;

}  // namespace detail

// What a weave task may await: another task, or an awaitable that suspends
// by handing its handle to the scheduler (load, prefetch). Anything else
// (std::suspend_always, another library's awaitable) would suspend where no
// scheduler looks for it, and the frame would be lost or resumed twice.
template <class A>
concept weave_awaitable = detail::is_task<std::remove_cvref_t<A>> ||
                          std::derived_from<std::remove_cvref_t<A>, detail::suspend_to_scheduler>;

namespace detail {

class promise_base {
 public:
  template <class A>
  A&& await_transform(A&& awaitable) const noexcept {
    static_assert(weave_awaitable<A>,
                  "a weave::task may co_await only a weave::task or weave::load/prefetch: other awaitables "
                  "suspend where no weave scheduler resumes them");
    return std::forward<A>(awaitable);
  }

  static void* operator new(std::size_t bytes) { return frame_pool::allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept {
    frame_pool::deallocate(p, bytes);
  }

  std::suspend_always initial_suspend() const noexcept { return {}; }

  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) const noexcept {
#if WEAVE_BOUNDED_TRANSFER
      if (bool* finished = self.promise().finished_inline_) {  // the awaiter called us: return to it
        *finished = true;
        return resume_nothing();
      }
#endif
      // A root task has no awaiter: returning to the scheduler that resumed it.
      std::coroutine_handle<> next = self.promise().continuation_;
      return next ? next : resume_nothing();
    }
    void await_resume() const noexcept {}
  };
  final_awaiter final_suspend() const noexcept { return {}; }

  void unhandled_exception() noexcept { exception_ = std::current_exception(); }

  void set_continuation(std::coroutine_handle<> c) noexcept { continuation_ = c; }
#if WEAVE_BOUNDED_TRANSFER
  // Set while the awaiter runs this task by a call (see the top of the file).
  bool* finished_inline_ = nullptr;
#endif

 protected:
  void rethrow_if_failed() const {
    if (exception_) std::rethrow_exception(exception_);
  }

 private:
  std::coroutine_handle<> continuation_;
  std::exception_ptr exception_;
};

template <class T>
class task_promise final : public promise_base {
 public:
  task<T> get_return_object() noexcept;

  template <class U>
    requires std::is_convertible_v<U&&, T>
  void return_value(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    std::construct_at(std::addressof(value_), std::forward<U>(value));
    has_value_ = true;
  }

  T& result() & {
    rethrow_if_failed();
    WEAVE_ASSERT(has_value_);
    return value_;
  }
  T&& result() && {
    rethrow_if_failed();
    WEAVE_ASSERT(has_value_);
    return std::move(value_);
  }

  task_promise() noexcept {}
  ~task_promise() {
    if (has_value_) std::destroy_at(std::addressof(value_));
  }

 private:
  union {
    T value_;
  };
  bool has_value_ = false;
};

template <class T>
class task_promise<T&> final : public promise_base {
 public:
  task<T&> get_return_object() noexcept;
  void return_value(T& value) noexcept { value_ = std::addressof(value); }
  T& result() const {
    rethrow_if_failed();
    return *value_;
  }

 private:
  T* value_ = nullptr;
};

template <>
class task_promise<void> final : public promise_base {
 public:
  task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
  void result() const { rethrow_if_failed(); }
};

}  // namespace detail

template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::task_promise<T>;
  using handle_type = std::coroutine_handle<promise_type>;
  using value_type = T;

  task() noexcept = default;
  explicit task(handle_type h) noexcept : handle_(h) {}
  task(task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() {
    if (handle_) handle_.destroy();
  }

  bool valid() const noexcept { return static_cast<bool>(handle_); }
  bool done() const noexcept { return handle_.done(); }

  // Hands the frame to a scheduler, which then destroys it.
  handle_type release() noexcept { return std::exchange(handle_, {}); }
  // The frame, still owned by this task, for a scheduler to resume.
  handle_type handle() const noexcept { return handle_; }

  auto operator co_await() & noexcept { return awaiter<false>{handle_}; }
  auto operator co_await() && noexcept { return awaiter<true>{handle_}; }

 private:
  template <bool Move>
  struct awaiter {
    handle_type callee;
    bool await_ready() const noexcept { return false; }
#if WEAVE_BOUNDED_TRANSFER
    bool await_suspend(std::coroutine_handle<> caller) const noexcept {
      WEAVE_ASSERT(callee && !callee.done());
      callee.promise().set_continuation(caller);
      bool finished = false;
      callee.promise().finished_inline_ = &finished;
      callee.resume();
      if (finished) return false;  // go on in the caller, on this stack frame
      // It suspended to the scheduler; when it finishes it transfers back.
      callee.promise().finished_inline_ = nullptr;
      return true;
    }
#else
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) const noexcept {
      WEAVE_ASSERT(callee && !callee.done());
      callee.promise().set_continuation(caller);
      return callee;
    }
#endif
    decltype(auto) await_resume() const {
      if constexpr (Move && !std::is_void_v<T> && !std::is_reference_v<T>) {
        return std::move(callee.promise()).result();
      } else {
        return callee.promise().result();
      }
    }
  };

  handle_type handle_;
};

namespace detail {
template <class T>
task<T> task_promise<T>::get_return_object() noexcept {
  return task<T>{std::coroutine_handle<task_promise>::from_promise(*this)};
}
template <class T>
task<T&> task_promise<T&>::get_return_object() noexcept {
  return task<T&>{std::coroutine_handle<task_promise>::from_promise(*this)};
}
inline task<void> task_promise<void>::get_return_object() noexcept {
  return task<void>{std::coroutine_handle<task_promise>::from_promise(*this)};
}
}  // namespace detail

}  // namespace weave
