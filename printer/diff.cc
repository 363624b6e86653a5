// Myers diff over lines: find the shortest edit script, then print it as unified hunks.
// Lines are compared by value; the trace of V arrays is kept to walk the path back.
#include "printer/diff.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace rlx {

namespace {

std::vector<std::string_view> splitLines(const std::string& s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) nl = s.size();
    lines.emplace_back(s.data() + start, nl - start);
    start = nl + 1;
  }
  return lines;
}

enum class Op : char { Equal = ' ', Delete = '-', Insert = '+' };

// The edit script turning a into b (Myers 1986, greedy forward search with a recorded trace).
std::vector<Op> editScript(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  const int n = int(a.size()), m = int(b.size()), max = n + m;
  std::vector<int> v(2 * size_t(max) + 2, 0);
  std::vector<std::vector<int>> trace;
  int offset = max + 1;
  int dFound = 0;
  for (int d = 0; d <= max; ++d) {
    trace.push_back(v);
    bool done = false;
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        done = true;
        break;
      }
    }
    if (done) {
      dFound = d;
      break;
    }
  }
  // Walk back through the trace.
  std::vector<Op> ops;
  int x = n, y = m;
  for (int d = dFound; d > 0; --d) {
    const std::vector<int>& pv = trace[d];
    int k = x - y;
    int prevK = (k == -d || (k != d && pv[offset + k - 1] < pv[offset + k + 1])) ? k + 1 : k - 1;
    int prevX = pv[offset + prevK], prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push_back(Op::Equal), --x, --y;
    ops.push_back(x == prevX ? Op::Insert : Op::Delete);
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) ops.push_back(Op::Equal), --x, --y;
  std::reverse(ops.begin(), ops.end());
  return ops;
}

}  // namespace

std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& nameBefore, const std::string& nameAfter, int context, bool color) {
  if (before == after) return "";
  auto a = splitLines(before), b = splitLines(after);
  auto ops = editScript(a, b);
  const char* red = color ? "\033[31m" : "";
  const char* green = color ? "\033[32m" : "";
  const char* cyan = color ? "\033[36m" : "";
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out = std::string(bold) + "--- " + nameBefore + reset + "\n" + bold + "+++ " + nameAfter + reset + "\n";
  // Positions of each op in a and b.
  std::vector<int> ia(ops.size() + 1), ib(ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    ia[i + 1] = ia[i] + (ops[i] != Op::Insert);
    ib[i + 1] = ib[i] + (ops[i] != Op::Delete);
  }
  size_t i = 0;
  while (i < ops.size()) {
    if (ops[i] == Op::Equal) {
      ++i;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is within 2*context equal lines of the previous one.
    size_t start = i >= size_t(context) ? i - size_t(context) : 0;
    while (start < i && ops[start] != Op::Equal) ++start;
    size_t end = i;
    size_t equalRun = 0;
    for (size_t j = i; j < ops.size(); ++j) {
      if (ops[j] == Op::Equal) {
        if (++equalRun > size_t(2 * context)) break;
      } else {
        equalRun = 0;
        end = j + 1;
      }
    }
    size_t stop = std::min(ops.size(), end + size_t(context));
    int aStart = ia[start], bStart = ib[start];
    int aLen = ia[stop] - aStart, bLen = ib[stop] - bStart;
    out += std::string(cyan) + "@@ -" + std::to_string(aLen ? aStart + 1 : aStart) + "," + std::to_string(aLen) + " +" + std::to_string(bLen ? bStart + 1 : bStart) + "," + std::to_string(bLen) + " @@" + reset + "\n";
    for (size_t j = start; j < stop; ++j) {
      if (ops[j] == Op::Equal) out += " " + std::string(a[ia[j]]) + "\n";
      else if (ops[j] == Op::Delete) out += std::string(red) + "-" + std::string(a[ia[j]]) + reset + "\n";
      else out += std::string(green) + "+" + std::string(b[ib[j]]) + reset + "\n";
    }
    i = stop;
  }
  return out;
}

}  // namespace rlx
