// HACRL sandbox: <bits/stdc++.h> for clang + libc++ on wasm32-wasi.
//
// GCC's libstdc++ has this "include everything" header and judge-style C++ starts with it;
// libc++ has none. This one includes every standard header that compiles for wasm32-wasi
// without threads, with or without exceptions. Left out: <csetjmp> and <csignal> (WASI has neither
// setjmp nor signals), <cstdalign> (removed in C++20); the threading headers (<mutex>,
// <condition_variable>, <future>, <shared_mutex>) are included but declare nothing, as WASI
// programs have one thread. It also provides GCC's std::__gcd and std::__lg, which judge
// solutions call as __gcd(a, b) and __lg(n).
#ifndef HACRL_BITS_STDCXX_H
#define HACRL_BITS_STDCXX_H

// C
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <ciso646>
#include <climits>
#include <clocale>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cwchar>
#include <cwctype>
#include <ccomplex>
#include <cfenv>
#include <cinttypes>
#include <cstdint>
#include <ctgmath>

// C++
#include <algorithm>
#include <bitset>
#include <complex>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <iomanip>
#include <ios>
#include <iosfwd>
#include <iostream>
#include <istream>
#include <iterator>
#include <limits>
#include <list>
#include <locale>
#include <map>
#include <memory>
#include <new>
#include <numeric>
#include <ostream>
#include <queue>
#include <set>
#include <sstream>
#include <stack>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <typeinfo>
#include <utility>
#include <valarray>
#include <vector>
#include <array>
#include <atomic>
#include <chrono>
#include <codecvt>
#include <condition_variable>
#include <forward_list>
#include <future>
#include <initializer_list>
#include <mutex>
#include <random>
#include <ratio>
#include <regex>
#include <scoped_allocator>
#include <system_error>
#include <thread>
#include <tuple>
#include <typeindex>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#if __cplusplus >= 201402L
#include <shared_mutex>
#endif

#if __cplusplus >= 201703L
#include <any>
#include <charconv>
#include <execution>
#include <memory_resource>
#include <optional>
#include <string_view>
#include <variant>
#endif

#if __cplusplus >= 202002L
#include <bit>
#include <compare>
#include <concepts>
#include <numbers>
#include <ranges>
#include <span>
#include <source_location>
#include <version>
#endif

_LIBCPP_BEGIN_NAMESPACE_STD
// GCC's std::__gcd for signed types (libc++ has an internal std::__gcd template for unsigned
// types only; a non-template overload wins over it for these argument types). __gcd(0, 0) == 0.
#define HACRL_SIGNED_GCD(_Tp)                                                                      \
  inline _Tp __gcd(_Tp __m, _Tp __n) {                                                           \
    while (__n != 0) {                                                                           \
      _Tp __t = __m % __n;                                                                       \
      __m = __n;                                                                                 \
      __n = __t;                                                                                 \
    }                                                                                            \
    return __m < 0 ? -__m : __m;                                                                 \
  }
HACRL_SIGNED_GCD(short)
HACRL_SIGNED_GCD(int)
HACRL_SIGNED_GCD(long)
HACRL_SIGNED_GCD(long long)
HACRL_SIGNED_GCD(__int128)
#undef HACRL_SIGNED_GCD

// GCC's std::__lg: floor(log2(n)) for n > 0.
inline int __lg(int __n) { return (int)sizeof(int) * 8 - 1 - __builtin_clz((unsigned)__n); }
inline int __lg(unsigned __n) { return (int)sizeof(unsigned) * 8 - 1 - __builtin_clz(__n); }
inline long __lg(long __n) { return (long)sizeof(long) * 8 - 1 - __builtin_clzl((unsigned long)__n); }
inline long __lg(unsigned long __n) { return (long)sizeof(unsigned long) * 8 - 1 - __builtin_clzl(__n); }
inline long long __lg(long long __n) {
  return (long long)sizeof(long long) * 8 - 1 - __builtin_clzll((unsigned long long)__n);
}
inline long long __lg(unsigned long long __n) {
  return (long long)sizeof(unsigned long long) * 8 - 1 - __builtin_clzll(__n);
}
_LIBCPP_END_NAMESPACE_STD

#endif  // HACRL_BITS_STDCXX_H
