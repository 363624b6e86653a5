// Intrusive reference counting for IR nodes: Object is the base of every node, Ref<T> the handle.
// Nodes are immutable once shared; a mutator builds new nodes and returns the same Ref when nothing changed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace rlx {

enum class NodeKind : uint8_t {
#define RLX_NODE(Name, Class, Family) Name,
#include "ir/nodes.def"
#undef RLX_NODE
};

const char* nodeKindName(NodeKind kind);

class Object {
 public:
  explicit Object(NodeKind kind) : kind_(kind) {}
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;
  NodeKind kind() const { return kind_; }
  void incRef() const { ++refCount_; }
  void decRef() const {
    if (--refCount_ == 0) delete this;
  }
  uint32_t useCount() const { return refCount_; }

 private:
  mutable uint32_t refCount_ = 0;
  NodeKind kind_;
};

// A nullable intrusive pointer. Copying bumps a non-atomic count (passes run single-threaded).
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  Ref(T* p) : p_(p) {
    if (p_) p_->incRef();
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->incRef();
  }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(const Ref<U>& o) : Ref(static_cast<T*>(o.get())) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(Ref<U>&& o) noexcept : p_(o.release()) {}
  ~Ref() {
    if (p_) p_->decRef();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool same(const Object* o) const { return p_ == o; }
  template <typename U>
  bool same(const Ref<U>& o) const {
    return static_cast<const Object*>(p_) == static_cast<const Object*>(o.get());
  }
  T* release() {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  // Checked downcast: null when the node is not of class U.
  template <typename U>
  Ref<U> as() const {
    return (p_ && U::classOf(p_->kind())) ? Ref<U>(static_cast<U*>(p_)) : Ref<U>();
  }
  template <typename U>
  bool is() const {
    return p_ && U::classOf(p_->kind());
  }

 private:
  T* p_ = nullptr;
};

template <typename T, typename U>
bool operator==(const Ref<T>& a, const Ref<U>& b) {
  return static_cast<const Object*>(a.get()) == static_cast<const Object*>(b.get());
}
template <typename T>
bool operator==(const Ref<T>& a, std::nullptr_t) {
  return a.get() == nullptr;
}

template <typename T, typename... Args>
Ref<T> make(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

// Hash of a Ref by identity, for pointer-keyed maps that never reach the printer.
struct RefHash {
  template <typename T>
  size_t operator()(const Ref<T>& r) const {
    return std::hash<const void*>()(r.get());
  }
};

}  // namespace rlx
