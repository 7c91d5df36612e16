// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// QCOMPARE failure messages for the standard types core uses (QTest prints nothing for them).
#include <QtTest>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace QTest {

template <> inline char *toString(const std::string &s)
{
    return qstrdup(QByteArray::fromStdString(s).toPercentEncoding(" !\"#$&'()*+,-./:;<=>?@[]^_`{|}~").constData());
}

template <> inline char *toString(const std::string_view &s)
{
    return toString(std::string(s));
}

template <> inline char *toString(const std::optional<uint64_t> &v)
{
    return qstrdup(v ? QByteArray::number(static_cast<qulonglong>(*v)).constData() : "nullopt");
}

template <> inline char *toString(const std::optional<int64_t> &v)
{
    return qstrdup(v ? QByteArray::number(static_cast<qlonglong>(*v)).constData() : "nullopt");
}

template <> inline char *toString(const std::optional<double> &v)
{
    return qstrdup(v ? QByteArray::number(*v, 'g', 17).constData() : "nullopt");
}

} // namespace QTest
