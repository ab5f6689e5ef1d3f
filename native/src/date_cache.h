// date_cache.h — the "Date: ...\r\n" header line, formatted at most once a second per loop.
#pragma once
#include <cstdint>
#include <ctime>

namespace br {

struct DateCache {
  static constexpr size_t kLen = 37;  // "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
  char line[kLen + 1] = {};
  time_t second = -1;

  void update(time_t now) {
    if (now == second) return;
    second = now;
    static const char *days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct tm t;
    if (!gmtime_r(&now, &t)) return;  // a year past INT_MAX: keep the last line
    char *p = line;
    auto put = [&p](const char *s) { while (*s) *p++ = *s++; };
    auto two = [&p](int v) { *p++ = char('0' + v / 10); *p++ = char('0' + v % 10); };
    put("Date: ");
    put(days[t.tm_wday]);
    put(", ");
    two(t.tm_mday);
    *p++ = ' ';
    put(months[t.tm_mon]);
    *p++ = ' ';
    int y = t.tm_year + 1900;
    two(y / 100);
    two(y % 100);
    *p++ = ' ';
    two(t.tm_hour);
    *p++ = ':';
    two(t.tm_min);
    *p++ = ':';
    two(t.tm_sec);
    put(" GMT\r\n");
  }
};

}  // namespace br
