// SGLang model gateway's approximate radix tree (see smg_tree.h).
#include "simulate/smg_tree.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace ltl {

SmgTree::SmgTree(uint32_t workers, uint32_t block_limit, uint64_t block_units)
    : workers_(workers), block_limit_(block_limit), block_units_(block_units), size_(workers, 0) {
  nodes_.emplace_back();  // the root: never matched as a deepest node, never evicted
}

uint64_t SmgTree::Units(const Node& n, size_t len) const {
  if (n.label.empty()) return 0;
  return static_cast<uint64_t>(len) * (n.label[0] < block_limit_ ? block_units_ : 1);
}

uint32_t SmgTree::Child(uint32_t node, uint32_t first) const {
  auto it = child_.find(Key(node, first));
  return it == child_.end() ? 0 : it->second;
}

uint32_t SmgTree::NewNode(uint32_t parent) {
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
    nodes_[id] = Node{};
  } else {
    id = static_cast<uint32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[id].parent = parent;
  nodes_[id].serial = ++serial_;
  return id;
}

uint64_t* SmgTree::TimeOf(Node& n, uint32_t tenant) {
  auto it =
      std::lower_bound(n.tenants.begin(), n.tenants.end(), std::make_pair(tenant, uint64_t{0}));
  return it != n.tenants.end() && it->first == tenant ? &it->second : nullptr;
}

bool SmgTree::Holds(const Node& n, uint32_t tenant) {
  auto it =
      std::lower_bound(n.tenants.begin(), n.tenants.end(), std::make_pair(tenant, uint64_t{0}));
  return it != n.tenants.end() && it->first == tenant;
}

void SmgTree::SetTime(Node& n, uint32_t tenant, uint64_t time) {
  auto it =
      std::lower_bound(n.tenants.begin(), n.tenants.end(), std::make_pair(tenant, uint64_t{0}));
  if (it != n.tenants.end() && it->first == tenant)
    it->second = time;
  else
    n.tenants.insert(it, {tenant, time});
}

bool SmgTree::ChildHolds(const Node& n, uint32_t tenant) const {
  for (uint32_t c : n.children)
    if (Holds(nodes_[c], tenant)) return true;
  return false;
}

SmgTree::Match SmgTree::MatchPrefix(const uint32_t* ids, uint32_t n) {
  Match m;
  uint32_t cur = 0, deepest = 0, pos = 0;
  while (pos < n) {
    const uint32_t c = Child(cur, ids[pos]);
    if (c == 0) break;
    const std::vector<uint32_t>& label = nodes_[c].label;
    uint32_t k = 0;
    while (k < label.size() && pos + k < n && ids[pos + k] == label[k]) ++k;
    m.matched += k;
    deepest = c;
    if (k < label.size()) break;  // a partial edge: the child is the deepest node
    pos += k;
    cur = c;
  }
  const uint64_t epoch = epoch_++;
  if (deepest == 0) return m;  // the root: nothing matched
  Node& d = nodes_[deepest];
  if (d.cached >= 0 && Holds(d, static_cast<uint32_t>(d.cached))) {
    m.tenant = d.cached;
  } else if (!d.tenants.empty()) {
    m.tenant = static_cast<int32_t>(d.tenants.front().first);  // the lowest index, then cached
    d.cached = m.tenant;
  }
  if ((epoch & 7) == 0 && m.tenant >= 0) SetTime(d, static_cast<uint32_t>(m.tenant), epoch);
  return m;
}

void SmgTree::Insert(const uint32_t* ids, uint32_t n, uint32_t tenant) {
  uint32_t cur = 0, pos = 0;
  while (pos < n) {
    const uint32_t c = Child(cur, ids[pos]);
    if (c == 0) {  // a new leaf with the rest
      const uint32_t leaf = NewNode(cur);
      Node& l = nodes_[leaf];
      l.label.assign(ids + pos, ids + n);
      l.cached = static_cast<int32_t>(tenant);
      l.tenants.push_back({tenant, epoch_++});
      size_[tenant] += Units(l, l.label.size());
      nodes_[cur].children.push_back(leaf);
      child_[Key(cur, ids[pos])] = leaf;
      return;
    }
    uint32_t k = 0;
    {
      const std::vector<uint32_t>& label = nodes_[c].label;
      while (k < label.size() && pos + k < n && ids[pos + k] == label[k]) ++k;
    }
    uint32_t next = c;
    if (k < nodes_[c].label.size()) {  // split c: the upper part takes the shared labels
      const uint32_t up = NewNode(cur);
      Node& u = nodes_[up];
      Node& lo = nodes_[c];
      u.label.assign(lo.label.begin(), lo.label.begin() + k);
      lo.label.erase(lo.label.begin(), lo.label.begin() + k);
      u.tenants = lo.tenants;
      u.cached = lo.cached;
      u.children.push_back(c);
      lo.parent = up;
      child_[Key(cur, u.label[0])] = up;
      child_[Key(up, lo.label[0])] = c;
      std::replace(nodes_[cur].children.begin(), nodes_[cur].children.end(), c, up);
      next = up;
    }
    Node& x = nodes_[next];
    if (!Holds(x, tenant)) {
      x.tenants.insert(
          std::lower_bound(x.tenants.begin(), x.tenants.end(), std::make_pair(tenant, uint64_t{0})),
          {tenant, 0});
      size_[tenant] += Units(x, x.label.size());
    }
    cur = next;
    pos += k;
  }
  const uint64_t epoch = epoch_++;
  if (cur != 0) SetTime(nodes_[cur], tenant, epoch);  // the node where the sequence ends
}

void SmgTree::RemoveNode(uint32_t id) {
  Node& x = nodes_[id];
  Node& p = nodes_[x.parent];
  child_.erase(Key(x.parent, x.label[0]));
  p.children.erase(std::find(p.children.begin(), p.children.end(), id));
  x = Node{};
  free_.push_back(id);
}

void SmgTree::EvictBySize(uint64_t max_size) {
  // Tenants are independent: a node leaves the tree only when no tenant holds it.
  using Entry = std::tuple<uint64_t, uint64_t, uint32_t>;  // time, serial, node
  for (uint32_t t = 0; t < workers_; ++t) {
    if (size_[t] <= max_size) continue;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    std::vector<bool> is_free(nodes_.size(), false);
    for (uint32_t f : free_) is_free[f] = true;
    for (uint32_t id = 1; id < nodes_.size(); ++id) {
      if (is_free[id]) continue;
      Node& x = nodes_[id];
      if (const uint64_t* time = TimeOf(x, t); time && !ChildHolds(x, t))
        queue.emplace(*time, x.serial, id);
    }
    while (!queue.empty() && size_[t] > max_size) {
      const auto [time, serial, id] = queue.top();
      queue.pop();
      Node& x = nodes_[id];
      if (x.serial != serial || !Holds(x, t) || ChildHolds(x, t)) continue;
      size_[t] -= std::min(size_[t], Units(x, x.label.size()));
      x.tenants.erase(
          std::lower_bound(x.tenants.begin(), x.tenants.end(), std::make_pair(t, uint64_t{0})));
      const uint32_t parent = x.parent;
      if (x.children.empty() && x.tenants.empty()) RemoveNode(id);
      if (parent == 0) continue;
      Node& p = nodes_[parent];
      if (const uint64_t* ptime = TimeOf(p, t); ptime && !ChildHolds(p, t))
        queue.emplace(*ptime, p.serial, parent);
    }
  }
}

}  // namespace ltl
