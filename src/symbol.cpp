// Interning of symbol names: one std::string per distinct name, never moved or freed, so that a
// symbol is a pointer to it and comparing two symbols compares pointers.
#include "reshape1/symbol.hpp"

#include <mutex>
#include <string>
#include <unordered_set>

namespace reshape1 {
namespace {

struct name_table {
  std::mutex mutex;
  // Node-based: an element's address survives rehashing. Heterogeneous lookup avoids a std::string
  // per lookup of a name that is already there.
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
  };
  std::unordered_set<std::string, hash, std::equal_to<>> names;
};

name_table& interned() {
  static name_table* t = new name_table;  // never destroyed: symbols in static objects outlive any order
  return *t;
}

}  // namespace

symbol::symbol(std::string_view name) {
  if (name.empty()) return;
  auto& t = interned();
  const std::lock_guard lock(t.mutex);
  auto it = t.names.find(name);
  if (it == t.names.end()) it = t.names.emplace(name).first;
  name_ = &*it;
}

}  // namespace reshape1
