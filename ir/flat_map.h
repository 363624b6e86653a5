// FlatMap / FlatSet: open-addressing hash tables for the hot per-node tables of the verifier and
// printer (100k-entry scopes), where std::unordered_* pays one allocation per entry.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace rlx {

// Linear probing over a power-of-two table; erase leaves a tombstone. Keys and values must be
// default-constructible and movable. Lookups never allocate; iteration order is unspecified, so
// nothing iterated from here may reach printed output. A full slot's state byte holds 7 bits of
// the key's hash, so a probe compares keys (strings: a memcmp and a cache miss) only on a match.
template <typename K, typename V, typename Hash = std::hash<K>>
class FlatMap {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void reserve(size_t n) {
    size_t cap = 16;
    while (cap * 3 < n * 4) cap *= 2;  // keep the load (tombstones included) under 3/4
    if (cap > slots_.size()) rehash(cap);
  }

  V* find(const K& key) {
    if (slots_.empty()) return nullptr;
    size_t mask = slots_.size() - 1;
    uint64_t m = mix(key);
    uint8_t tag = tagOf(m);
    for (size_t i = indexOf(m); ; i = (i + 1) & mask) {
      if (state_[i] == kEmpty) return nullptr;
      if (state_[i] == tag && slots_[i].first == key) return &slots_[i].second;
    }
  }
  const V* find(const K& key) const { return const_cast<FlatMap*>(this)->find(key); }
  bool contains(const K& key) const { return find(key) != nullptr; }

  // The value for `key`, default-constructed if absent; `inserted` tells which.
  V& emplace(const K& key, bool& inserted) {
    if (slots_.empty()) rehash(16);
    // Over 3/4 used: double when over half is live, else just drop the tombstones.
    else if ((used_ + 1) * 4 > slots_.size() * 3) rehash((size_ + 1) * 2 > slots_.size() ? slots_.size() * 2 : slots_.size());
    size_t mask = slots_.size() - 1;
    size_t grave = SIZE_MAX;
    uint64_t m = mix(key);
    uint8_t tag = tagOf(m);
    for (size_t i = indexOf(m); ; i = (i + 1) & mask) {
      if (state_[i] >= kFull) {
        if (state_[i] == tag && slots_[i].first == key) {
          inserted = false;
          return slots_[i].second;
        }
      } else if (state_[i] == kTomb) {
        if (grave == SIZE_MAX) grave = i;
      } else {
        size_t at = grave != SIZE_MAX ? grave : i;
        if (at == i) ++used_;
        state_[at] = tag;
        slots_[at].first = key;
        ++size_;
        inserted = true;
        return slots_[at].second;
      }
    }
  }
  V& operator[](const K& key) {
    bool inserted;
    return emplace(key, inserted);
  }

  bool erase(const K& key) {
    if (slots_.empty()) return false;
    size_t mask = slots_.size() - 1;
    uint64_t m = mix(key);
    uint8_t tag = tagOf(m);
    for (size_t i = indexOf(m); ; i = (i + 1) & mask) {
      if (state_[i] == kEmpty) return false;
      if (state_[i] == tag && slots_[i].first == key) {
        state_[i] = kTomb;
        slots_[i] = {};
        --size_;
        return true;
      }
    }
  }

  void clear() {
    slots_.clear();
    state_.clear();
    size_ = used_ = 0;
  }

 private:
  enum : uint8_t { kEmpty = 0, kTomb = 1, kFull = 0x80 };  // full slots: kFull | 7 hash bits
  std::vector<std::pair<K, V>> slots_;
  std::vector<uint8_t> state_;
  size_t size_ = 0;  // full slots
  size_t used_ = 0;  // full or tombstone slots

  // Fibonacci hashing spreads pointer keys (aligned, so their low bits are zero); the slot comes
  // from the middle bits, the tag from the top ones.
  static uint64_t mix(const K& key) { return uint64_t(Hash()(key)) * 0x9E3779B97F4A7C15ull; }
  size_t indexOf(uint64_t m) const { return size_t(m >> 20) & (slots_.size() - 1); }
  static uint8_t tagOf(uint64_t m) { return uint8_t(kFull | (m >> 57)); }
  void rehash(size_t cap) {
    std::vector<std::pair<K, V>> old = std::move(slots_);
    std::vector<uint8_t> oldState = std::move(state_);
    slots_.assign(cap, {});
    state_.assign(cap, kEmpty);
    size_ = used_ = 0;
    for (size_t i = 0; i < old.size(); ++i)
      if (oldState[i] >= kFull) {
        bool inserted;
        emplace(old[i].first, inserted) = std::move(old[i].second);
      }
  }
};

// A set on the same table: insert() returns whether the key was new.
template <typename K, typename Hash = std::hash<K>>
class FlatSet {
 public:
  bool insert(const K& key) {
    bool inserted;
    map_.emplace(key, inserted);
    return inserted;
  }
  bool contains(const K& key) const { return map_.contains(key); }
  size_t count(const K& key) const { return contains(key) ? 1 : 0; }
  bool erase(const K& key) { return map_.erase(key); }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  void reserve(size_t n) { map_.reserve(n); }
  void clear() { map_.clear(); }

 private:
  struct Unit {};
  FlatMap<K, Unit, Hash> map_;
};

}  // namespace rlx
