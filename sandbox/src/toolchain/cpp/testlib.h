// testlib.h: HACRL's testlib-compatible header for C++ special judges (checkers) and
// interactors.
//
// Written for this project from the documented interface of testlib (the checker library most
// competitive-programming problem sets use); it shares none of testlib's code. Licence: the
// HACRL project's own, like the rest of this repository.
//
// What a checker gets:
//   registerTestlibCmd(argc, argv)  opens the three files: argv[1..3] (input, contestant output,
//                                   answer), or input.txt, output.txt, answer.txt when argc < 4.
//   registerInteraction(argc, argv) for an interactor: inf from argv[1] (input.txt), tout
//                                   writing argv[2] (output.txt), ans from argv[3]
//                                   (answer.txt) when given; ouf reads the contestant's
//                                   output from standard input as it comes (at most 16 MiB in
//                                   all), and what the interactor prints to standard output
//                                   goes to the contestant: flush it (std::endl, fflush).
//   inf, ouf, ans                   the input, the contestant's output, the reference answer.
//   Reading (each stream)           readInt/readLong/readInteger, readDouble/readReal, with
//                                   (min, max, name) range checks; readToken/readWord,
//                                   readString/readLine, readChar, readSpace, readEoln, readEof,
//                                   eof, seekEof, eoln, seekEoln, nextLine; readInts, readLongs,
//                                   readReals, readTokens, readWords, readLines (n values).
//   Ending                          quit(result, message), quitf(result, format, ...),
//                                   quitif(condition, result, format, ...); quit, quitf and
//                                   ensuref on a stream (ouf.quitf(_wa, ...)); ensure(cond),
//                                   ensuref(cond, format, ...).
//   Helpers                         doubleCompare, doubleDelta, compareWords, upperCase,
//                                   lowerCase, trim, compress, englishEnding, toString, vtos,
//                                   format(...), setName(...).
//   Not provided                    scored results (quitp, _points), reads by pattern, the
//                                   validators' strict mode, the generators' rnd.
//
// Exit codes, as the judge reads them: _ok 0 (accepted); _wa 1; _pe 1 as well, because a
// presentation error is the contestant's fault and the judge knows only accepted and wrong;
// _fail 3 (the checker or the test data is broken: never the contestant's fault). The message
// goes to standard error, where the judge keeps it.
//
// Whose fault a failed read is follows the stream: on ouf (the contestant's output) it is a
// wrong answer; on inf or ans (the test data) it is _fail. A checker that accepts while the
// contestant's output still holds more than whitespace is answered wrong (testlib's "extra
// information in the output file").
//
// Nothing here throws, so a checker behaves the same where the sandbox's C++ has exceptions and
// where it has not (their libraries are built at set-up): every failure ends the process
// through quit().

#ifndef HACRL_TESTLIB_H
#define HACRL_TESTLIB_H

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

// What a checker concludes. The values are testlib's, so code that stores or compares them
// keeps working; resultExitCode() gives the exit code the judge reads.
enum TResult {
    _ok = 0,
    _wa = 1,
    _pe = 2,
    _fail = 3,
    _dirt = 4,
    _unexpected_eof = 8,
};

namespace hacrl_testlib {

// The exit code the judge reads for a result.
inline int exitCode(TResult result) {
    switch (result) {
    case _ok:
        return 0;
    case _fail:
        return 3;
    default:
        return 1;  // _wa, _pe, _dirt, _unexpected_eof: the contestant's answer is not accepted.
    }
}

// The words testlib prints before a result's message.
inline const char *prefix(TResult result) {
    switch (result) {
    case _ok:
        return "ok";
    case _wa:
        return "wrong answer";
    case _fail:
        return "FAIL";
    default:
        return "wrong output format";  // _pe, _dirt, _unexpected_eof
    }
}

// printf into a std::string.
inline std::string vformat(const char *fmt, va_list args) {
    va_list copy;
    va_copy(copy, args);
    int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (n <= 0) {
        return std::string();
    }
    std::string out(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(&out[0], out.size(), fmt, args);
    out.resize(static_cast<size_t>(n));
    return out;
}

// Whitespace between tokens: space, tab, carriage return, line feed.
inline bool blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace hacrl_testlib

// The checker's name (testlib prints it in some modes; kept for checkers that set it).
inline std::string testlibCheckerName;

// Ends the checker with `result`: the message goes to stderr, the exit code to the judge.
[[noreturn]] inline void quit(TResult result, const std::string &message);

[[noreturn]] inline void quit(TResult result, const char *message) {
    quit(result, std::string(message ? message : ""));
}

// quit() with a printf-style message.
[[noreturn]] inline void quitf(TResult result, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

[[noreturn]] inline void quitf(TResult result, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::string message = hacrl_testlib::vformat(fmt, args);
    va_end(args);
    quit(result, message);
}

// quitf() when `condition` holds.
inline void quitif(bool condition, TResult result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

inline void quitif(bool condition, TResult result, const char *fmt, ...) {
    if (!condition) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    std::string message = hacrl_testlib::vformat(fmt, args);
    va_end(args);
    quit(result, message);
}

// A printf-style std::string.
inline std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

inline std::string format(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::string out = hacrl_testlib::vformat(fmt, args);
    va_end(args);
    return out;
}

// The checker's own invariant: when it does not hold, the checker is broken (_fail).
inline void ensuref(bool condition, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

inline void ensuref(bool condition, const char *fmt, ...) {
    if (condition) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    std::string message = hacrl_testlib::vformat(fmt, args);
    va_end(args);
    quit(_fail, message);
}

inline void hacrl_testlib_ensure(bool condition, const char *text) {
    if (!condition) {
        quit(_fail, std::string("condition failed: ") + text);
    }
}

// ensuref() whose message is the condition's text.
#define ensure(cond) hacrl_testlib_ensure((cond), #cond)

// Sets the checker's name.
inline void setName(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

inline void setName(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    testlibCheckerName = hacrl_testlib::vformat(fmt, args);
    va_end(args);
}

// `s` shortened for a message: its start and end around "...".
inline std::string compress(const std::string &s) {
    return s.size() <= 64 ? s : s.substr(0, 30) + "..." + s.substr(s.size() - 31);
}

// One of the three files, read whole into memory, with a reading position.
class InStream {
  public:
    // Which file this is decides whose fault a failed read is.
    enum Role { Input, Output, Answer };

    explicit InStream(Role role) : role_(role) {}

    // Reads `path` whole; a file that cannot be read is the judge's failure.
    void open(const char *path) {
        std::FILE *f = std::fopen(path, "rb");
        if (!f) {
            quitf(_fail, "cannot open %s (%s)", path, name());
        }
        data_.clear();
        static char buffer[1 << 16];  // not on the stack: a wasm32 program's is 64 KiB
        size_t n;
        while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
            data_.append(buffer, n);
        }
        std::fclose(f);
        pos_ = 0;
        opened_ = true;
    }

    // Reads standard input as it comes: an interactor's ouf, the contestant's output.
    void openStdin() {
        data_.clear();
        pos_ = 0;
        streaming_ = true;
        opened_ = true;
    }

    bool opened() const { return opened_; }

    // Whether this stream reads standard input as it comes.
    bool streaming() const { return streaming_; }

    // "input", "output" or "answer".
    const char *name() const {
        switch (role_) {
        case Input:
            return "input";
        case Output:
            return "output";
        default:
            return "answer";
        }
    }

    // Ends the checker: on the contestant's output as `result`; on the input or the answer any
    // result but _ok is the test data's failure (_fail).
    [[noreturn]] void quit(TResult result, const std::string &message) const {
        if (role_ != Output && result != _ok) {
            ::quit(_fail, message + " (in the " + name() + " file)");
        }
        ::quit(result, message);
    }

    [[noreturn]] void quit(TResult result, const char *message) const {
        quit(result, std::string(message ? message : ""));
    }

    [[noreturn]] __attribute__((format(printf, 3, 4))) void quitf(TResult result,
                                                                  const char *fmt, ...) const {
        va_list args;
        va_start(args, fmt);
        std::string message = hacrl_testlib::vformat(fmt, args);
        va_end(args);
        quit(result, message);
    }

    // A condition on what was read: when it fails, a wrong answer on ouf, _fail elsewhere.
    __attribute__((format(printf, 3, 4))) void ensuref(bool condition, const char *fmt,
                                                       ...) const {
        if (condition) {
            return;
        }
        va_list args;
        va_start(args, fmt);
        std::string message = hacrl_testlib::vformat(fmt, args);
        va_end(args);
        quit(_wa, message);
    }

    // --- Position --------------------------------------------------------------------------

    bool eof() const { return pos_ >= data_.size() && !fill(); }

    // Skips whitespace, then tells whether the file ends.
    bool seekEof() {
        skipBlanks();
        return eof();
    }

    // Whether the next character ends a line (or the file).
    bool eoln() const {
        return eof() || data_[pos_] == '\n' || (data_[pos_] == '\r' && next(1) == '\n');
    }

    // Skips spaces and tabs, then tells whether the line ends.
    bool seekEoln() {
        while (!eof() && (data_[pos_] == ' ' || data_[pos_] == '\t')) {
            pos_++;
        }
        return eoln();
    }

    // Moves past the end of the current line.
    void nextLine() {
        while (!eof() && data_[pos_] != '\n') {
            pos_++;
        }
        if (!eof()) {
            pos_++;
        }
    }

    // The next character without reading it (EOF at the end).
    int curChar() const { return eof() ? EOF : static_cast<unsigned char>(data_[pos_]); }

    void skipChar() {
        if (!eof()) {
            pos_++;
        }
    }

    void skipBlanks() {
        while (!eof() && hacrl_testlib::blank(data_[pos_])) {
            pos_++;
        }
    }

    // --- Characters and separators ---------------------------------------------------------

    char readChar() {
        if (eof()) {
            quit(_unexpected_eof, "unexpected end of file: expected a character");
        }
        return data_[pos_++];
    }

    // Reads one character, which must be `c`.
    char readChar(char c) {
        char got = readChar();
        if (got != c) {
            quitf(_pe, "expected character %s, found %s", shown(c).c_str(), shown(got).c_str());
        }
        return got;
    }

    void readSpace() { readChar(' '); }

    // Reads a line end: "\n" or "\r\n".
    void readEoln() {
        if (!eof() && data_[pos_] == '\r') {
            pos_++;
        }
        if (eof()) {
            quit(_unexpected_eof, "unexpected end of file: expected a line end");
        }
        readChar('\n');
    }

    // Whitespace may remain; anything else is extra data.
    void readEof() {
        if (!seekEof()) {
            quit(_pe, "expected end of file, found more data");
        }
    }

    // --- Tokens ----------------------------------------------------------------------------

    // The next whitespace-separated token (whitespace before it is skipped).
    std::string readToken() {
        skipBlanks();
        if (eof()) {
            quit(_unexpected_eof, "unexpected end of file: expected a token");
        }
        size_t start = pos_;
        while (!eof() && !hacrl_testlib::blank(data_[pos_])) {
            pos_++;
        }
        return data_.substr(start, pos_ - start);
    }

    std::string readWord() { return readToken(); }

    // --- Numbers ---------------------------------------------------------------------------

    long long readLong() {
        std::string token = readToken();
        long long value = 0;
        if (!parseInteger(token, value)) {
            quitf(_pe, "expected an integer, found \"%s\"", compress(token).c_str());
        }
        return value;
    }

    long long readLong(long long min, long long max, const std::string &variable = "") {
        long long value = readLong();
        if (value < min || value > max) {
            quitf(_wa, "%s %lld violates the range [%lld, %lld]", label(variable, "integer"),
                  value, min, max);
        }
        return value;
    }

    int readInt() {
        std::string token = readToken();
        long long value = 0;
        if (!parseInteger(token, value) || value < std::numeric_limits<int>::min() ||
            value > std::numeric_limits<int>::max()) {
            quitf(_pe, "expected a 32-bit integer, found \"%s\"", compress(token).c_str());
        }
        return static_cast<int>(value);
    }

    int readInt(int min, int max, const std::string &variable = "") {
        int value = readInt();
        if (value < min || value > max) {
            quitf(_wa, "%s %d violates the range [%d, %d]", label(variable, "integer"), value,
                  min, max);
        }
        return value;
    }

    int readInteger() { return readInt(); }

    int readInteger(int min, int max, const std::string &variable = "") {
        return readInt(min, max, variable);
    }

    double readDouble() {
        std::string token = readToken();
        double value = 0;
        if (!parseReal(token, value)) {
            quitf(_pe, "expected a real number, found \"%s\"", compress(token).c_str());
        }
        return value;
    }

    double readDouble(double min, double max, const std::string &variable = "") {
        double value = readDouble();
        if (value < min || value > max) {
            quitf(_wa, "%s %.10g violates the range [%.10g, %.10g]", label(variable, "real"),
                  value, min, max);
        }
        return value;
    }

    double readReal() { return readDouble(); }

    double readReal(double min, double max, const std::string &variable = "") {
        return readDouble(min, max, variable);
    }

    // --- Lines -----------------------------------------------------------------------------

    // The rest of the current line, without its line end (which is read).
    std::string readLine() {
        if (eof()) {
            quit(_unexpected_eof, "unexpected end of file: expected a line");
        }
        size_t start = pos_;
        while (!eof() && data_[pos_] != '\n') {
            pos_++;
        }
        size_t end = pos_;
        if (end > start && data_[end - 1] == '\r') {
            end--;
        }
        if (!eof()) {
            pos_++;
        }
        return data_.substr(start, end - start);
    }

    std::string readString() { return readLine(); }

    // --- Several values --------------------------------------------------------------------

    std::vector<int> readInts(int count, int min, int max, const std::string &variable = "") {
        return repeat(count, [&] { return readInt(min, max, variable); });
    }

    std::vector<int> readInts(int count) {
        return readInts(count, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    }

    std::vector<long long> readLongs(int count, long long min, long long max,
                                     const std::string &variable = "") {
        return repeat(count, [&] { return readLong(min, max, variable); });
    }

    std::vector<long long> readLongs(int count) {
        return readLongs(count, std::numeric_limits<long long>::min(),
                         std::numeric_limits<long long>::max());
    }

    std::vector<double> readReals(int count, double min, double max,
                                  const std::string &variable = "") {
        return repeat(count, [&] { return readReal(min, max, variable); });
    }

    std::vector<double> readReals(int count) {
        return repeat(count, [&] { return readReal(); });
    }

    std::vector<double> readDoubles(int count) { return readReals(count); }

    std::vector<std::string> readTokens(int count) {
        return repeat(count, [&] { return readToken(); });
    }

    std::vector<std::string> readWords(int count) { return readTokens(count); }

    std::vector<std::string> readLines(int count) {
        return repeat(count, [&] { return readLine(); });
    }

    std::vector<std::string> readStrings(int count) { return readLines(count); }

  private:
    // `count` values, each from one call of `read`, in order.
    template <typename Read>
    static auto repeat(int count, Read read) -> std::vector<decltype(read())> {
        std::vector<decltype(read())> out;
        for (int i = 0; i < count; i++) {
            out.push_back(read());
        }
        return out;
    }

    // Most a streaming ouf keeps: what it read stays in memory, and a contestant flooding
    // its output must end as a wrong answer, not as the interactor's memory limit.
    static constexpr size_t kStreamLimit = 16 << 20;

    Role role_;
    // What was read; for a streaming stream, grown by fill() as reads need more.
    mutable std::string data_;
    size_t pos_ = 0;
    bool opened_ = false;
    bool streaming_ = false;
    mutable bool ended_ = false;

    // Reads what standard input holds now (waiting for at least a byte) onto the end of
    // data_; false at its end, or for a stream read whole.
    bool fill() const {
        if (!streaming_ || ended_) {
            return false;
        }
        static char buffer[1 << 16];  // not on the stack: a wasm32 program's is 64 KiB
        ssize_t n = ::read(0, buffer, sizeof buffer);
        if (n <= 0) {
            ended_ = true;
            return false;
        }
        if (data_.size() + static_cast<size_t>(n) > kStreamLimit) {
            quit(_wa, "the output is longer than the interactor reads (16 MiB)");
        }
        data_.append(buffer, static_cast<size_t>(n));
        return true;
    }

    int next(size_t ahead) const {
        while (pos_ + ahead >= data_.size()) {
            if (!fill()) {
                return EOF;
            }
        }
        return static_cast<unsigned char>(data_[pos_ + ahead]);
    }

    static std::string shown(char c) {
        if (c == '\n') {
            return "EOLN";
        }
        if (std::isprint(static_cast<unsigned char>(c))) {
            return std::string("'") + c + "'";
        }
        return format("#%d", static_cast<unsigned char>(c));
    }

    // "n" or "integer": how a range message names the value.
    static const char *label(const std::string &variable, const char *kind) {
        return variable.empty() ? kind : variable.c_str();
    }

    // An optional minus sign and decimal digits, within a long long.
    static bool parseInteger(const std::string &token, long long &value) {
        size_t i = 0;
        bool negative = false;
        if (i < token.size() && token[i] == '-') {
            negative = true;
            i++;
        }
        if (i == token.size()) {
            return false;
        }
        // Accumulated as a negative number, whose range holds every long long.
        long long acc = 0;
        const long long lowest = std::numeric_limits<long long>::min();
        for (; i < token.size(); i++) {
            if (!std::isdigit(static_cast<unsigned char>(token[i]))) {
                return false;
            }
            int digit = token[i] - '0';
            if (acc < (lowest + digit) / 10) {
                return false;
            }
            acc = acc * 10 - digit;
        }
        if (!negative && acc == lowest) {
            return false;
        }
        value = negative ? acc : -acc;
        return true;
    }

    // A decimal number (digits, one point, an exponent); no "nan", "inf" or hexadecimal.
    static bool parseReal(const std::string &token, double &value) {
        bool digits = false;
        for (char c : token) {
            if (std::isdigit(static_cast<unsigned char>(c))) {
                digits = true;
            } else if (!std::strchr(".eE+-", c)) {
                return false;
            }
        }
        if (!digits) {
            return false;
        }
        char *end = nullptr;
        value = std::strtod(token.c_str(), &end);
        return end == token.c_str() + token.size() && std::isfinite(value);
    }
};

// The input of the test, the contestant's output, the reference answer.
inline InStream inf(InStream::Input);
inline InStream ouf(InStream::Output);
inline InStream ans(InStream::Answer);
namespace hacrl_testlib {

// A stream buffer that writes a C file: tout is a std::ostream without <fstream>, which not
// every libc++ build provides.
class FileBuffer : public std::streambuf {
  public:
    void open(const char *path) { file_ = std::fopen(path, "w"); }

  protected:
    int overflow(int c) override {
        if (c != EOF && file_) {
            std::fputc(c, file_);
        }
        return c == EOF ? 0 : c;
    }

    std::streamsize xsputn(const char *s, std::streamsize n) override {
        return file_ ? static_cast<std::streamsize>(std::fwrite(s, 1, n, file_)) : n;
    }

    int sync() override { return file_ ? std::fflush(file_) : 0; }

  private:
    std::FILE *file_ = nullptr;
};

inline FileBuffer toutBuffer;

}  // namespace hacrl_testlib

// What an interactor writes for a later checker (argv[2]); nothing reads it here.
inline std::ostream tout(&hacrl_testlib::toutBuffer);

[[noreturn]] inline void quit(TResult result, const std::string &message) {
    // Accepting an output that holds more than was read is accepting unchecked data (an
    // interactor's contestant may still be running: its output is not checked to its end).
    if (result == _ok && ouf.opened() && !ouf.streaming() && !ouf.seekEof()) {
        result = _dirt;
        std::fprintf(stderr, "%s extra information in the output file\n",
                     hacrl_testlib::prefix(result));
    } else {
        std::fprintf(stderr, "%s %s\n", hacrl_testlib::prefix(result), message.c_str());
    }
    std::fflush(stderr);
    std::exit(hacrl_testlib::exitCode(result));
}

// The exit code the judge reads for `result`.
inline int resultExitCode(TResult result) { return hacrl_testlib::exitCode(result); }

// Opens inf, ouf and ans: from argv[1..3], or input.txt, output.txt and answer.txt when the
// checker was started without them.
inline void registerTestlibCmd(int argc, char *argv[]) {
    const char *input = "input.txt";
    const char *output = "output.txt";
    const char *answer = "answer.txt";
    if (argc >= 4) {
        input = argv[1];
        output = argv[2];
        answer = argv[3];
    }
    inf.open(input);
    ouf.open(output);
    ans.open(answer);
}

// For an interactor: inf from argv[1], tout writing argv[2], ans from argv[3] when there is
// one (input.txt, output.txt, answer.txt when started without them), and ouf reading the
// contestant's output from standard input as it comes.
inline void registerInteraction(int argc, char *argv[]) {
    inf.open(argc >= 2 ? argv[1] : "input.txt");
    hacrl_testlib::toutBuffer.open(argc >= 3 ? argv[2] : "output.txt");
    if (argc >= 4) {
        ans.open(argv[3]);
    } else if (std::FILE *f = std::fopen("answer.txt", "rb")) {
        std::fclose(f);
        ans.open("answer.txt");
    }
    ouf.openStdin();
}

// --- Helpers -------------------------------------------------------------------------------

// Whether `result` is within `maxError` of `expected`, absolutely or relatively.
inline bool doubleCompare(double expected, double result, double maxError) {
    if (std::isnan(expected) || std::isnan(result)) {
        return std::isnan(expected) && std::isnan(result);
    }
    if (std::isinf(expected) || std::isinf(result)) {
        return expected == result;
    }
    const double slack = 1e-15;  // what the decimal text of an exact answer may lose
    double diff = std::fabs(result - expected);
    return diff <= maxError + slack || diff <= std::fabs(expected) * maxError + slack;
}

// The smaller of the absolute and the relative error of `result`.
inline double doubleDelta(double expected, double result) {
    double absolute = std::fabs(result - expected);
    if (std::fabs(expected) > 1e-9) {
        return std::min(absolute, absolute / std::fabs(expected));
    }
    return absolute;
}

// Whether two texts hold the same whitespace-separated words.
inline bool compareWords(const std::string &first, const std::string &second) {
    auto words = [](const std::string &s) {
        std::vector<std::string> out;
        size_t i = 0;
        while (i < s.size()) {
            while (i < s.size() && hacrl_testlib::blank(s[i])) {
                i++;
            }
            size_t start = i;
            while (i < s.size() && !hacrl_testlib::blank(s[i])) {
                i++;
            }
            if (i > start) {
                out.push_back(s.substr(start, i - start));
            }
        }
        return out;
    };
    return words(first) == words(second);
}

inline std::string upperCase(std::string s) {
    for (char &c : s) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return s;
}

inline std::string lowerCase(std::string s) {
    for (char &c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

// `s` without whitespace at either end.
inline std::string trim(const std::string &s) {
    size_t start = 0;
    size_t end = s.size();
    while (start < end && hacrl_testlib::blank(s[start])) {
        start++;
    }
    while (end > start && hacrl_testlib::blank(s[end - 1])) {
        end--;
    }
    return s.substr(start, end - start);
}

// "1st", "2nd", "3rd", "4th", "11th", …: for messages naming the n-th value.
inline std::string englishEnding(int n) {
    int lastTwo = n % 100;
    int last = n % 10;
    const char *suffix = "th";
    if (lastTwo < 11 || lastTwo > 13) {
        if (last == 1) {
            suffix = "st";
        } else if (last == 2) {
            suffix = "nd";
        } else if (last == 3) {
            suffix = "rd";
        }
    }
    return std::to_string(n) + suffix;
}

// A value as text, for messages.
template <typename T> std::string toString(const T &value) {
    if constexpr (std::is_same_v<T, std::string>) {
        return value;
    } else {
        return std::to_string(value);
    }
}

template <typename T> std::string vtos(const T &value) { return toString(value); }

#endif  // HACRL_TESTLIB_H
