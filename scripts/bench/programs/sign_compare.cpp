// A small program of our own for the bench's `cpp-stl-preprocessed` case: its g++ -E output
// (the standard headers included) is the case's input. g++ -Wall warns once, at the loop in
// `Histogram::peak`, that it compares an int with std::array's size_type: seeing that needs
// std::array's definition (its size() and size_type), not just this file.
#include <array>
#include <utility>

namespace bench {

constexpr int kBins = 8;

class Histogram {
 public:
  explicit Histogram(double low, double high) : low_(low), high_(high) { counts_.fill(0); }

  void add(double x) {
    if (x < low_ || x >= high_) {
      ++outside_;
      return;
    }
    const double width = (high_ - low_) / kBins;
    counts_[static_cast<unsigned>((x - low_) / width)] += 1;
  }

  // The bin with the most samples and its count.
  std::pair<int, unsigned> peak() const {
    std::pair<int, unsigned> best{0, counts_[0]};
    for (int i = 1; i < counts_.size(); ++i) {
      if (counts_[i] > best.second) best = std::make_pair(i, counts_[i]);
    }
    return best;
  }

  unsigned outside() const { return outside_; }

 private:
  double low_;
  double high_;
  std::array<unsigned, kBins> counts_;
  unsigned outside_ = 0;
};

// A fixed-size moving average over the last N samples.
template <std::size_t N>
class MovingAverage {
 public:
  double push(double x) {
    sum_ += x - window_[next_];
    window_[next_] = x;
    next_ = (next_ + 1) % N;
    if (filled_ < N) ++filled_;
    return sum_ / static_cast<double>(filled_);
  }

 private:
  std::array<double, N> window_{};
  std::size_t next_ = 0;
  std::size_t filled_ = 0;
  double sum_ = 0;
};

}  // namespace bench

int summarize(const double* xs, int n) {
  bench::Histogram h(0.0, 1.0);
  bench::MovingAverage<4> avg;
  double last = 0;
  for (int i = 0; i < n; ++i) {
    h.add(xs[i]);
    last = avg.push(xs[i]);
  }
  auto [bin, count] = h.peak();
  return bin * 1000 + static_cast<int>(count) + static_cast<int>(h.outside()) + (last > 0.5 ? 1 : 0);
}
