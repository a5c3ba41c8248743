// An inventory report over the standard library's containers, algorithms and streams: a
// program whose preprocessed form is a megabyte of libstdc++, as C++ bug reports attach.
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

struct Item {
  std::string name;
  int count;
  double price;
};

static std::map<std::string, std::vector<Item>> by_shelf(const std::vector<Item> &items) {
  std::map<std::string, std::vector<Item>> shelves;
  for (const Item &item : items) shelves[item.name.substr(0, 1)].push_back(item);
  return shelves;
}

static double total(const std::vector<Item> &items) {
  return std::accumulate(items.begin(), items.end(), 0.0,
                         [](double sum, const Item &i) { return sum + i.count * i.price; });
}

int main() {
  std::vector<Item> items{{"apple", 3, 0.5}, {"bread", 1, 2.25}, {"cheese", 2, 4.0}};
  std::vector<std::string> names;
  std::transform(items.begin(), items.end(), std::back_inserter(names),
                 [](const Item &i) { return i.name; });
  std::sort(names.begin(), names.end());
  std::set<std::string> unique(names.begin(), names.end());
  std::unordered_map<std::string, int> index;
  // The warning: an int compared with std::vector<std::string>::size_type.
  for (int i = 0; i < names.size(); i++) index[names[i]] = i;
  auto report = std::make_unique<std::ostringstream>();
  for (const auto &[shelf, shelved] : by_shelf(items))
    *report << shelf << ": " << shelved.size() << " items, " << total(shelved) << "\n";
  std::function<void(const std::string &)> print = [](const std::string &s) { std::cout << s; };
  print(report->str());
  return unique.size() == index.size() ? 0 : 1;
}
