// SPDX-License-Identifier: GPL-3.0-or-later
// The test HTTP server itself, through a raw socket client written here (not libcurl): headers,
// each form of Range, validators, keep-alive, malformed requests, redirects, bearer tokens, every
// fault, counters and the log, and a prompt stop() with clients stuck mid-answer.
#include "tests/support/range_server/range_server.h"
#include "tests/support/test_printers.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>

using namespace gguf::test;

namespace {

constexpr qint64 kPatternSize = 1 << 20;
constexpr qint64 kSparseSize = qint64(3) << 30;
constexpr qint64 kSparseTail = 16;

// The pattern file's byte at offset i: varies within and across 256-byte spans.
char patternByte(qint64 i)
{
    return static_cast<char>((i * 31 + (i >> 8) * 7 + (i >> 16)) & 0xff);
}

QByteArray pattern(qint64 first, qint64 length)
{
    QByteArray bytes(length, Qt::Uninitialized);
    for (qint64 i = 0; i < length; ++i)
        bytes[i] = patternByte(first + i);
    return bytes;
}

struct Response {
    int status = 0;
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;
    bool complete = false; // the whole body announced by Content-Length arrived

    QByteArray header(const char *name) const { return headers.value(name); }
    bool has(const char *name) const { return headers.contains(name); }
};

// One TCP connection to the server: send bytes, read answers as they come.
class RawClient {
public:
    explicit RawClient(uint16_t port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        // a broken server fails the test instead of hanging it
        timeval timeout{5, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
            close();
    }
    ~RawClient() { close(); }
    RawClient(const RawClient &) = delete;
    RawClient &operator=(const RawClient &) = delete;

    bool isOpen() const { return m_fd >= 0; }
    void close()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

    bool send(const QByteArray &bytes)
    {
        qint64 sent = 0;
        while (sent < bytes.size()) {
            const ssize_t n =
                ::send(m_fd, bytes.constData() + sent, static_cast<size_t>(bytes.size() - sent), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += n;
        }
        return true;
    }

    /// The next answer; its body is read only when `withBody` (not for HEAD, nor to look at a stall).
    std::optional<Response> read(bool withBody = true)
    {
        qsizetype end = -1;
        while ((end = m_buffer.indexOf("\r\n\r\n")) < 0)
            if (!fill())
                return std::nullopt;
        const QList<QByteArray> lines = m_buffer.left(end).split('\n');
        m_buffer.remove(0, end + 4);
        Response r;
        const QList<QByteArray> statusLine = lines.front().trimmed().split(' ');
        if (statusLine.size() < 2 || statusLine[0] != "HTTP/1.1")
            return std::nullopt;
        r.status = statusLine[1].toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                r.headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
        }
        if (!withBody) {
            r.complete = true;
            return r;
        }
        const qint64 length = r.header("content-length").toLongLong();
        while (m_buffer.size() < length && fill()) {
        }
        r.body = m_buffer.left(length);
        m_buffer.remove(0, r.body.size());
        r.complete = r.body.size() == length;
        return r;
    }

    /// What arrives within `ms`; `closed` tells whether the server closed the connection meanwhile.
    QByteArray readFor(int ms, bool *closed = nullptr)
    {
        QElapsedTimer timer;
        timer.start();
        bool eof = false;
        while (!eof && timer.elapsed() < ms) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(std::max<qint64>(1, ms - timer.elapsed()))) > 0)
                eof = !fill();
        }
        if (closed)
            *closed = eof;
        return std::exchange(m_buffer, {});
    }

    /// Whether the server closes the connection within two seconds, sending nothing more.
    bool closedByServer()
    {
        bool closed = false;
        return readFor(2000, &closed).isEmpty() && closed;
    }

private:
    bool fill()
    {
        char chunk[65536];
        const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            return false;
        m_buffer.append(chunk, n);
        return true;
    }

    int m_fd = -1;
    QByteArray m_buffer;
};

} // namespace

class TestRangeServer : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void headReportsSizeAndValidators();
    void ranges_data();
    void ranges();
    void unsatisfiable_data();
    void unsatisfiable();
    void sparseFile();
    void headerNamesIgnoreCase();
    void pathsAreDecodedAndQueriesIgnored();
    void keepAliveAndClose();
    void malformed_data();
    void malformed();
    void ifRange_data();
    void ifRange();
    void ifMatch_data();
    void ifMatch();
    void etagFollowsTheFile();
    void forcedAndDroppedValidators();
    void redirects_data();
    void redirects();
    void redirectChainAndLoop();
    void bearer_data();
    void bearer();
    void forcedStatus_data();
    void forcedStatus();
    void faultIgnoreRange();
    void faultDropMidBody_data();
    void faultDropMidBody();
    void faultWrongContentRange_data();
    void faultWrongContentRange();
    void faultShortContentRange_data();
    void faultShortContentRange();
    void faultSlow();
    void faultStatus_data();
    void faultStatus();
    void faultStallBody();
    void faultCounts();
    void countersAndLog();
    void clientLeavingMidBodyIsHarmless();
    void stopIsPromptWithClientsStuck();

private:
    QByteArray request(const QByteArray &method, const QByteArray &path, const QByteArray &headers = {}) const;
    /// Sends one request on a new connection and reads the answer.
    Response fetch(const QByteArray &method, const QByteArray &path, const QByteArray &headers = {});
    QByteArray currentEtag(const QByteArray &path);

    QTemporaryDir m_dir;
    QString m_patternPath;
    QString m_sparsePath;
    RangeServer m_server;
};

QByteArray TestRangeServer::request(const QByteArray &method, const QByteArray &path, const QByteArray &headers) const
{
    return method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_server.port()) + "\r\n" +
           headers + "\r\n";
}

Response TestRangeServer::fetch(const QByteArray &method, const QByteArray &path, const QByteArray &headers)
{
    RawClient client(m_server.port());
    if (!client.send(request(method, path, headers)))
        return {};
    return client.read(method != "HEAD").value_or(Response());
}

QByteArray TestRangeServer::currentEtag(const QByteArray &path)
{
    return fetch("HEAD", path).header("etag");
}

void TestRangeServer::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_patternPath = m_dir.filePath(QStringLiteral("pattern.bin"));
    QFile pattern(m_patternPath);
    QVERIFY(pattern.open(QIODevice::WriteOnly));
    QCOMPARE(pattern.write(::pattern(0, kPatternSize)), kPatternSize);
    pattern.close();
    // 3 GiB of which only the last bytes are written: a hole the server must never read whole
    m_sparsePath = m_dir.filePath(QStringLiteral("sparse.bin"));
    QFile sparse(m_sparsePath);
    QVERIFY(sparse.open(QIODevice::WriteOnly));
    QVERIFY(sparse.resize(kSparseSize));
    QVERIFY(sparse.seek(kSparseSize - kSparseTail));
    QCOMPARE(sparse.write(::pattern(kSparseSize - kSparseTail, kSparseTail)), kSparseTail);
    sparse.close();

    QVERIFY(m_server.start());
    QVERIFY(m_server.port() != 0);
    QCOMPARE(m_server.url("/a.gguf"), "http://127.0.0.1:" + std::to_string(m_server.port()) + "/a.gguf");
    m_server.serve("/pattern.bin", m_patternPath.toStdString());
    m_server.serve("/sparse.bin", m_sparsePath.toStdString());
}

void TestRangeServer::headReportsSizeAndValidators()
{
    RawClient client(m_server.port());
    QVERIFY(client.send(request("HEAD", "/pattern.bin")));
    const auto r = client.read(false);
    QVERIFY(r);
    QCOMPARE(r->status, 200);
    QCOMPARE(r->header("content-length"), QByteArray::number(kPatternSize));
    QCOMPARE(r->header("accept-ranges"), "bytes");
    QCOMPARE(r->header("content-type"), "application/octet-stream");
    const QByteArray etag = r->header("etag");
    QVERIFY(etag.size() > 2 && etag.startsWith('"') && etag.endsWith('"'));
    const QDateTime modified = QFileInfo(m_patternPath).lastModified().toUTC();
    QCOMPARE(r->header("last-modified"),
             QLocale::c().toString(modified, QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'")).toLatin1());
    QVERIFY(!r->has("content-range"));
    // no body followed: the next answer on the connection starts right away
    QVERIFY(client.send(request("HEAD", "/pattern.bin")));
    const auto again = client.read(false);
    QVERIFY(again);
    QCOMPARE(again->header("etag"), etag);
}

void TestRangeServer::ranges_data()
{
    QTest::addColumn<QByteArray>("range");
    QTest::addColumn<int>("status");
    QTest::addColumn<qint64>("first");
    QTest::addColumn<qint64>("length");
    const qint64 n = kPatternSize;
    QTest::newRow("closed") << QByteArray("bytes=100-199") << 206 << qint64(100) << qint64(100);
    QTest::newRow("first byte") << QByteArray("bytes=0-0") << 206 << qint64(0) << qint64(1);
    QTest::newRow("last byte") << "bytes=" + QByteArray::number(n - 1) + "-" + QByteArray::number(n - 1) << 206 << n - 1
                               << qint64(1);
    QTest::newRow("open-ended") << QByteArray("bytes=1048000-") << 206 << qint64(1048000) << n - 1048000;
    QTest::newRow("whole file as a range") << QByteArray("bytes=0-") << 206 << qint64(0) << n;
    QTest::newRow("suffix") << QByteArray("bytes=-100") << 206 << n - 100 << qint64(100);
    QTest::newRow("suffix longer than the file") << QByteArray("bytes=-2000000") << 206 << qint64(0) << n;
    QTest::newRow("end past the size") << QByteArray("bytes=1048570-2000000") << 206 << qint64(1048570) << qint64(6);
    QTest::newRow("huge end") << QByteArray("bytes=10-99999999999999999999999") << 206 << qint64(10) << n - 10;
    QTest::newRow("several ranges: whole body") << QByteArray("bytes=0-1,5-6") << 200 << qint64(0) << n;
    QTest::newRow("last before first: ignored") << QByteArray("bytes=9-5") << 200 << qint64(0) << n;
    QTest::newRow("other unit: ignored") << QByteArray("items=0-5") << 200 << qint64(0) << n;
    QTest::newRow("garbage: ignored") << QByteArray("bytes=abc") << 200 << qint64(0) << n;
    QTest::newRow("no range") << QByteArray() << 200 << qint64(0) << n;
}

void TestRangeServer::ranges()
{
    QFETCH(QByteArray, range);
    QFETCH(int, status);
    QFETCH(qint64, first);
    QFETCH(qint64, length);
    const Response r = fetch("GET", "/pattern.bin", range.isEmpty() ? QByteArray() : "Range: " + range + "\r\n");
    QCOMPARE(r.status, status);
    QCOMPARE(r.header("content-length"), QByteArray::number(length));
    if (status == 206)
        QCOMPARE(r.header("content-range"), "bytes " + QByteArray::number(first) + "-" +
                                                QByteArray::number(first + length - 1) + "/" +
                                                QByteArray::number(kPatternSize));
    else
        QVERIFY(!r.has("content-range"));
    QVERIFY(r.complete);
    QVERIFY(r.body == pattern(first, length));
}

void TestRangeServer::unsatisfiable_data()
{
    QTest::addColumn<QByteArray>("range");
    QTest::newRow("starts at the size") << QByteArray("bytes=1048576-");
    QTest::newRow("starts past the size") << QByteArray("bytes=2000000-2000010");
    QTest::newRow("huge start") << QByteArray("bytes=99999999999999999999999-");
    QTest::newRow("empty suffix") << QByteArray("bytes=-0");
}

void TestRangeServer::unsatisfiable()
{
    QFETCH(QByteArray, range);
    RawClient client(m_server.port());
    QVERIFY(client.send(request("GET", "/pattern.bin", "Range: " + range + "\r\n")));
    const auto r = client.read();
    QVERIFY(r);
    QCOMPARE(r->status, 416);
    QCOMPARE(r->header("content-range"), "bytes */" + QByteArray::number(kPatternSize));
    // the connection survives a 416
    QVERIFY(client.send(request("GET", "/pattern.bin", "Range: bytes=0-3\r\n")));
    const auto next = client.read();
    QVERIFY(next);
    QCOMPARE(next->status, 206);
}

void TestRangeServer::sparseFile()
{
    const Response head = fetch("HEAD", "/sparse.bin");
    QCOMPARE(head.status, 200);
    QCOMPARE(head.header("content-length"), QByteArray::number(kSparseSize));
    const Response tail = fetch("GET", "/sparse.bin", "Range: bytes=-16\r\n");
    QCOMPARE(tail.status, 206);
    QCOMPARE(tail.header("content-range"), "bytes 3221225456-3221225471/3221225472");
    QVERIFY(tail.body == pattern(kSparseSize - kSparseTail, kSparseTail));
    // past 2^31: offsets are 64-bit all the way to pread
    const Response hole = fetch("GET", "/sparse.bin", "Range: bytes=2147483648-2147483663\r\n");
    QCOMPARE(hole.status, 206);
    QCOMPARE(hole.header("content-range"), "bytes 2147483648-2147483663/3221225472");
    QVERIFY(hole.body == QByteArray(16, '\0'));
}

void TestRangeServer::headerNamesIgnoreCase()
{
    RawClient client(m_server.port());
    QVERIFY(client.send("GET /pattern.bin HTTP/1.1\r\nhOsT: x\r\nrAnGe: bytes=4-7\r\nCONNECTION: CLOSE\r\n\r\n"));
    const auto r = client.read();
    QVERIFY(r);
    QCOMPARE(r->status, 206);
    QVERIFY(r->body == pattern(4, 4));
    QVERIFY(client.closedByServer());
}

void TestRangeServer::pathsAreDecodedAndQueriesIgnored()
{
    m_server.serve("/with space.bin", m_patternPath.toStdString());
    QCOMPARE(fetch("HEAD", "/with%20space.bin").status, 200);
    QCOMPARE(fetch("HEAD", "/pattern.bin?download=true").status, 200);
    QCOMPARE(fetch("HEAD", "http://127.0.0.1/pattern.bin").status, 200);
    QCOMPARE(fetch("HEAD", "/nothing-here.bin").status, 404);
    QCOMPARE(fetch("HEAD", "/pattern.bin/").status, 404);
}

void TestRangeServer::keepAliveAndClose()
{
    RawClient client(m_server.port());
    for (int i = 0; i < 2; ++i) {
        QVERIFY(client.send(
            request("GET", "/pattern.bin",
                    "Range: bytes=" + QByteArray::number(i * 10) + "-" + QByteArray::number(i * 10 + 9) + "\r\n")));
        const auto r = client.read();
        QVERIFY(r);
        QCOMPARE(r->status, 206);
        QVERIFY(!r->has("connection"));
        QVERIFY(r->body == pattern(i * 10, 10));
    }
    // pipelined: two requests in one write, two answers in order
    QVERIFY(client.send(request("GET", "/pattern.bin", "Range: bytes=0-1\r\n") +
                        request("GET", "/pattern.bin", "Range: bytes=2-3\r\n")));
    for (qint64 first : {0, 2}) {
        const auto r = client.read();
        QVERIFY(r);
        QVERIFY(r->body == pattern(first, 2));
    }
    QVERIFY(client.send(request("GET", "/pattern.bin", "Range: bytes=0-0\r\nConnection: close\r\n")));
    const auto last = client.read();
    QVERIFY(last);
    QCOMPARE(last->header("connection"), "close");
    QVERIFY(client.closedByServer());

    // HTTP/1.0 closes unless it asks to keep the connection
    RawClient old(m_server.port());
    QVERIFY(old.send("HEAD /pattern.bin HTTP/1.0\r\n\r\n"));
    QVERIFY(old.read(false));
    QVERIFY(old.closedByServer());
    RawClient kept(m_server.port());
    QVERIFY(kept.send("HEAD /pattern.bin HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    const auto keptAnswer = kept.read(false);
    QVERIFY(keptAnswer);
    QCOMPARE(keptAnswer->header("connection"), "keep-alive");
    QVERIFY(kept.send("HEAD /pattern.bin HTTP/1.0\r\n\r\n"));
    QVERIFY(kept.read(false));
}

void TestRangeServer::malformed_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("closes");
    QTest::newRow("no version") << QByteArray("GET /pattern.bin\r\n\r\n") << 400 << true;
    QTest::newRow("HTTP/2.0") << QByteArray("GET /pattern.bin HTTP/2.0\r\nHost: x\r\n\r\n") << 400 << true;
    QTest::newRow("two spaces") << QByteArray("GET  /pattern.bin HTTP/1.1\r\nHost: x\r\n\r\n") << 400 << true;
    QTest::newRow("line without colon") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n") << 400 << true;
    QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : x\r\n\r\n") << 400 << true;
    QTest::newRow("folded line") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n") << 400 << true;
    QTest::newRow("no Host in 1.1") << QByteArray("GET /pattern.bin HTTP/1.1\r\n\r\n") << 400 << true;
    QTest::newRow("binary") << QByteArray("\x01\x02\xff\xfe garbage\r\n\r\n") << 400 << true;
    QTest::newRow("control in target") << QByteArray("GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n") << 400 << true;
    QTest::newRow("chunked body") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                                  << 400 << true;
    QTest::newRow("headers over 64 KiB") << "GET /pattern.bin HTTP/1.1\r\nHost: x\r\nX-Big: " + QByteArray(70000, 'a') +
                                                "\r\n\r\n"
                                         << 431 << true;
    QTest::newRow("60 KiB of headers accepted")
        << "HEAD /pattern.bin HTTP/1.1\r\nHost: x\r\nX-Big: " + QByteArray(60000, 'a') + "\r\n\r\n"
        << 200 << false;
    QTest::newRow("bare LF accepted") << QByteArray("HEAD /pattern.bin HTTP/1.1\nHost: x\n\n") << 200 << false;
    QTest::newRow("empty line first accepted")
        << QByteArray("\r\nHEAD /pattern.bin HTTP/1.1\r\nHost: x\r\n\r\n") << 200 << false;
    QTest::newRow("body dropped") << QByteArray("HEAD /pattern.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
                                  << 200 << false;
    QTest::newRow("POST") << QByteArray("POST /pattern.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n") << 405
                          << false;
}

void TestRangeServer::malformed()
{
    QFETCH(QByteArray, text);
    QFETCH(int, status);
    QFETCH(bool, closes);
    RawClient client(m_server.port());
    QVERIFY(client.send(text));
    const auto r = client.read(!text.contains("HEAD /"));
    QVERIFY(r);
    QCOMPARE(r->status, status);
    QCOMPARE(r->header("connection") == "close", closes);
    if (closes) {
        QVERIFY(client.closedByServer());
    } else {
        QVERIFY(client.send(request("HEAD", "/pattern.bin")));
        QVERIFY(client.read(false));
    }
}

void TestRangeServer::ifRange_data()
{
    QTest::addColumn<QByteArray>("ifRange"); // $etag and $date stand for the current validators
    QTest::addColumn<int>("status");
    QTest::newRow("current ETag") << QByteArray("$etag") << 206;
    QTest::newRow("other ETag") << QByteArray("\"other\"") << 200;
    QTest::newRow("current ETag, weak") << QByteArray("W/$etag") << 200;
    QTest::newRow("current date") << QByteArray("$date") << 206;
    QTest::newRow("other date") << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT") << 200;
}

void TestRangeServer::ifRange()
{
    QFETCH(QByteArray, ifRange);
    QFETCH(int, status);
    const Response head = fetch("HEAD", "/pattern.bin");
    ifRange.replace("$etag", head.header("etag")).replace("$date", head.header("last-modified"));
    const Response r = fetch("GET", "/pattern.bin", "Range: bytes=10-19\r\nIf-Range: " + ifRange + "\r\n");
    QCOMPARE(r.status, status);
    QVERIFY(r.body == (status == 206 ? pattern(10, 10) : pattern(0, kPatternSize)));
}

void TestRangeServer::ifMatch_data()
{
    QTest::addColumn<QByteArray>("ifMatch"); // $etag stands for the current ETag
    QTest::addColumn<int>("status");
    QTest::newRow("current ETag") << QByteArray("$etag") << 206;
    QTest::newRow("in a list") << QByteArray("\"a\", $etag, \"b,c\"") << 206;
    QTest::newRow("star") << QByteArray("*") << 206;
    QTest::newRow("other ETag") << QByteArray("\"other\"") << 412;
    QTest::newRow("current ETag, weak") << QByteArray("W/$etag") << 412;
    QTest::newRow("not an ETag") << QByteArray("nonsense") << 412;
}

void TestRangeServer::ifMatch()
{
    QFETCH(QByteArray, ifMatch);
    QFETCH(int, status);
    ifMatch.replace("$etag", currentEtag("/pattern.bin"));
    const Response r = fetch("GET", "/pattern.bin", "Range: bytes=0-9\r\nIf-Match: " + ifMatch + "\r\n");
    QCOMPARE(r.status, status);
}

void TestRangeServer::etagFollowsTheFile()
{
    const QString path = m_dir.filePath(QStringLiteral("changing.bin"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(pattern(0, 1000));
    file.close();
    m_server.serve("/changing.bin", path.toStdString());
    const QByteArray first = currentEtag("/changing.bin");
    QVERIFY(!first.isEmpty());
    QCOMPARE(currentEtag("/changing.bin"), first);

    // rewritten in place, longer: new size and new ETag at the next request
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(pattern(0, 2000));
    file.close();
    const Response head = fetch("HEAD", "/changing.bin");
    QCOMPARE(head.header("content-length"), "2000");
    const QByteArray second = head.header("etag");
    QVERIFY(second != first);
    // a client resuming with the old ETag gets the new file whole
    const Response stale = fetch("GET", "/changing.bin", "Range: bytes=0-9\r\nIf-Range: " + first + "\r\n");
    QCOMPARE(stale.status, 200);
    QCOMPARE(stale.body.size(), 2000);

    // replaced by another file of the same size (another inode)
    const QString replacement = m_dir.filePath(QStringLiteral("replacement.bin"));
    QFile other(replacement);
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write(pattern(1, 2000));
    other.close();
    QVERIFY(::rename(QFile::encodeName(replacement).constData(), QFile::encodeName(path).constData()) == 0);
    const QByteArray third = currentEtag("/changing.bin");
    QVERIFY(third != second && third != first);
    QVERIFY(fetch("GET", "/changing.bin", "Range: bytes=0-9\r\n").body == pattern(1, 10));
}

void TestRangeServer::forcedAndDroppedValidators()
{
    m_server.serve("/validators.bin", m_patternPath.toStdString());
    m_server.setEtag("/validators.bin", "\"v1\"");
    QCOMPARE(currentEtag("/validators.bin"), "\"v1\"");
    QCOMPARE(fetch("GET", "/validators.bin", "Range: bytes=0-1\r\nIf-Range: \"v1\"\r\n").status, 206);

    // Last-Modified only
    m_server.setEtag("/validators.bin", std::nullopt);
    const Response lastModifiedOnly = fetch("HEAD", "/validators.bin");
    QVERIFY(!lastModifiedOnly.has("etag"));
    QVERIFY(lastModifiedOnly.has("last-modified"));
    QCOMPARE(fetch("GET", "/validators.bin", "Range: bytes=0-1\r\nIf-Range: \"v1\"\r\n").status, 200);

    // neither
    m_server.setLastModified("/validators.bin", false);
    const Response none = fetch("HEAD", "/validators.bin");
    QVERIFY(!none.has("etag"));
    QVERIFY(!none.has("last-modified"));

    // ETag only
    m_server.resetValidators("/validators.bin");
    m_server.setLastModified("/validators.bin", false);
    const Response etagOnly = fetch("HEAD", "/validators.bin");
    QCOMPARE(etagOnly.header("etag"), currentEtag("/pattern.bin"));
    QVERIFY(!etagOnly.has("last-modified"));
}

void TestRangeServer::redirects_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("to");
    QTest::newRow("302 to a path") << 302 << QByteArray("/pattern.bin");
    QTest::newRow("301") << 301 << QByteArray("/pattern.bin");
    QTest::newRow("307 to a full URL") << 307 << QByteArray("http://localhost:1/elsewhere.gguf?sig=abc");
    QTest::newRow("308") << 308 << QByteArray("/pattern.bin");
}

void TestRangeServer::redirects()
{
    QFETCH(int, status);
    QFETCH(QByteArray, to);
    const QByteArray from = "/redirect-" + QByteArray::number(status);
    m_server.redirect(from.toStdString(), to.toStdString(), status);
    for (const QByteArray method : {"GET", "HEAD"}) {
        const Response r = fetch(method, from, "Range: bytes=0-9\r\n");
        QCOMPARE(r.status, status);
        QCOMPARE(r.header("location"), to);
        QCOMPARE(r.header("content-length"), "0");
    }
}

void TestRangeServer::redirectChainAndLoop()
{
    m_server.redirect("/chain/1", "/chain/2");
    m_server.redirect("/chain/2", m_server.url("/pattern.bin"), 307);
    Response r = fetch("GET", "/chain/1");
    QCOMPARE(r.status, 302);
    QCOMPARE(r.header("location"), "/chain/2");
    r = fetch("GET", r.header("location"));
    QCOMPARE(r.status, 307);
    QCOMPARE(r.header("location"), QByteArray::fromStdString(m_server.url("/pattern.bin")));
    QCOMPARE(fetch("HEAD", "/pattern.bin").status, 200);

    m_server.redirect("/loop/a", "/loop/b");
    m_server.redirect("/loop/b", "/loop/a");
    QByteArray at = "/loop/a";
    for (int i = 0; i < 4; ++i) {
        r = fetch("GET", at);
        QCOMPARE(r.status, 302);
        at = r.header("location");
    }
    QCOMPARE(at, "/loop/a");
}

void TestRangeServer::bearer_data()
{
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<int>("status");
    QTest::newRow("none") << QByteArray() << 401;
    QTest::newRow("Basic") << QByteArray("Basic dXNlcjpwYXNz") << 401;
    QTest::newRow("wrong token") << QByteArray("Bearer hf_wrong") << 403;
    QTest::newRow("right token") << QByteArray("Bearer hf_secret") << 206;
    QTest::newRow("scheme in lower case") << QByteArray("bearer hf_secret") << 206;
}

void TestRangeServer::bearer()
{
    QFETCH(QByteArray, authorization);
    QFETCH(int, status);
    m_server.serve("/gated.bin", m_patternPath.toStdString());
    m_server.requireBearer("/gated.bin", "hf_secret");
    const QByteArray headers = authorization.isEmpty() ? QByteArray() : "Authorization: " + authorization + "\r\n";
    const Response r = fetch("GET", "/gated.bin", headers + "Range: bytes=0-9\r\n");
    QCOMPARE(r.status, status);
    QCOMPARE(r.has("www-authenticate"), status == 401);
    if (status == 401)
        QCOMPARE(r.header("www-authenticate"), "Bearer");
    if (status == 206)
        QVERIFY(r.body == pattern(0, 10));
}

void TestRangeServer::forcedStatus_data()
{
    QTest::addColumn<int>("status");
    for (int status : {401, 403, 404, 410, 429, 500, 503})
        QTest::newRow(QByteArray::number(status).constData()) << status;
}

void TestRangeServer::forcedStatus()
{
    QFETCH(int, status);
    m_server.serve("/status.bin", m_patternPath.toStdString());
    m_server.setStatus("/status.bin", status);
    const Response r = fetch("GET", "/status.bin", "Range: bytes=0-9\r\n");
    QCOMPARE(r.status, status);
    QVERIFY(r.body.startsWith(QByteArray::number(status) + ' '));
    QCOMPARE(fetch("GET", "/status.bin").status, status);
    m_server.clearStatus("/status.bin");
    QCOMPARE(fetch("GET", "/status.bin", "Range: bytes=0-9\r\n").status, 206);
}

void TestRangeServer::faultIgnoreRange()
{
    m_server.serve("/f/ignore.bin", m_patternPath.toStdString());
    m_server.addFault("/f/ignore.bin", Fault::ignoreRange());
    const Response r = fetch("GET", "/f/ignore.bin", "Range: bytes=10-19\r\n");
    QCOMPARE(r.status, 200);
    QVERIFY(!r.has("content-range"));
    QVERIFY(r.body == pattern(0, kPatternSize));
    QCOMPARE(fetch("GET", "/f/ignore.bin", "Range: bytes=10-19\r\n").status, 206);
}

void TestRangeServer::faultDropMidBody_data()
{
    QTest::addColumn<quint64>("bytes");
    QTest::addColumn<QByteArray>("range");
    QTest::addColumn<qint64>("announced");
    QTest::addColumn<qint64>("sent");
    QTest::newRow("half of a range") << quint64(0) << QByteArray("bytes=0-999") << qint64(1000) << qint64(500);
    QTest::newRow("given count") << quint64(123) << QByteArray("bytes=0-999") << qint64(1000) << qint64(123);
    QTest::newRow("half of the file") << quint64(0) << QByteArray() << kPatternSize << kPatternSize / 2;
}

void TestRangeServer::faultDropMidBody()
{
    QFETCH(quint64, bytes);
    QFETCH(QByteArray, range);
    QFETCH(qint64, announced);
    QFETCH(qint64, sent);
    m_server.serve("/f/drop.bin", m_patternPath.toStdString());
    m_server.addFault("/f/drop.bin", Fault::dropMidBody(bytes));
    RawClient client(m_server.port());
    QVERIFY(client.send(request("GET", "/f/drop.bin", range.isEmpty() ? QByteArray() : "Range: " + range + "\r\n")));
    const auto r = client.read();
    QVERIFY(r);
    QCOMPARE(r->header("content-length"), QByteArray::number(announced));
    QVERIFY(!r->complete);
    QVERIFY(r->body == pattern(0, sent));
    QVERIFY(client.closedByServer());
}

void TestRangeServer::faultWrongContentRange_data()
{
    QTest::addColumn<quint64>("shift");
    QTest::addColumn<QByteArray>("range");
    QTest::addColumn<qint64>("named");
    QTest::addColumn<qint64>("length");
    QTest::newRow("one byte later") << quint64(0) << QByteArray("bytes=100-199") << qint64(101) << qint64(100);
    QTest::newRow("given shift") << quint64(1000) << QByteArray("bytes=100-199") << qint64(1100) << qint64(100);
    QTest::newRow("at the end: earlier") << quint64(0) << QByteArray("bytes=-10") << kPatternSize - 11 << qint64(10);
}

void TestRangeServer::faultWrongContentRange()
{
    QFETCH(quint64, shift);
    QFETCH(QByteArray, range);
    QFETCH(qint64, named);
    QFETCH(qint64, length);
    m_server.serve("/f/wrong.bin", m_patternPath.toStdString());
    m_server.addFault("/f/wrong.bin", Fault::wrongContentRange(shift));
    const Response r = fetch("GET", "/f/wrong.bin", "Range: " + range + "\r\n");
    QCOMPARE(r.status, 206);
    QCOMPARE(r.header("content-range"), "bytes " + QByteArray::number(named) + "-" +
                                            QByteArray::number(named + length - 1) + "/" +
                                            QByteArray::number(kPatternSize));
    QVERIFY(r.complete);
    QVERIFY(r.body == pattern(named, length));
}

void TestRangeServer::faultShortContentRange_data()
{
    QTest::addColumn<quint64>("bytes");
    QTest::addColumn<QByteArray>("range");
    QTest::addColumn<qint64>("first");
    QTest::addColumn<qint64>("sent");
    QTest::newRow("half") << quint64(0) << QByteArray("bytes=0-999") << qint64(0) << qint64(500);
    QTest::newRow("given count") << quint64(10) << QByteArray("bytes=200-999") << qint64(200) << qint64(10);
    QTest::newRow("one byte cannot be shorter") << quint64(0) << QByteArray("bytes=5-5") << qint64(5) << qint64(1);
}

void TestRangeServer::faultShortContentRange()
{
    QFETCH(quint64, bytes);
    QFETCH(QByteArray, range);
    QFETCH(qint64, first);
    QFETCH(qint64, sent);
    m_server.serve("/f/short.bin", m_patternPath.toStdString());
    m_server.addFault("/f/short.bin", Fault::shortContentRange(bytes));
    RawClient client(m_server.port());
    QVERIFY(client.send(request("GET", "/f/short.bin", "Range: " + range + "\r\n")));
    const auto r = client.read();
    QVERIFY(r);
    QCOMPARE(r->status, 206);
    QCOMPARE(r->header("content-range"), "bytes " + QByteArray::number(first) + "-" +
                                             QByteArray::number(first + sent - 1) + "/" +
                                             QByteArray::number(kPatternSize));
    QVERIFY(r->complete);
    QVERIFY(r->body == pattern(first, sent));
    // a legal answer: the connection goes on
    QVERIFY(client.send(request("HEAD", "/f/short.bin")));
    QVERIFY(client.read(false));
}

void TestRangeServer::faultSlow()
{
    m_server.serve("/f/slow.bin", m_patternPath.toStdString());
    m_server.addFault("/f/slow.bin", Fault::slow(300));
    QElapsedTimer timer;
    timer.start();
    const Response r = fetch("GET", "/f/slow.bin", "Range: bytes=0-9\r\n");
    QVERIFY(timer.elapsed() >= 290);
    QCOMPARE(r.status, 206);
    QVERIFY(r.body == pattern(0, 10));
    timer.restart();
    QCOMPARE(fetch("HEAD", "/f/slow.bin").status, 200);
    QVERIFY(timer.elapsed() < 250);
}

void TestRangeServer::faultStatus_data()
{
    QTest::addColumn<int>("status");
    for (int status : {416, 500, 503})
        QTest::newRow(QByteArray::number(status).constData()) << status;
}

void TestRangeServer::faultStatus()
{
    QFETCH(int, status);
    m_server.serve("/f/status.bin", m_patternPath.toStdString());
    m_server.addFault("/f/status.bin", Fault::withStatus(status));
    const Response r = fetch("GET", "/f/status.bin", "Range: bytes=0-9\r\n");
    QCOMPARE(r.status, status);
    if (status == 416)
        QCOMPARE(r.header("content-range"), "bytes */" + QByteArray::number(kPatternSize));
    QCOMPARE(fetch("GET", "/f/status.bin", "Range: bytes=0-9\r\n").status, 206);
}

void TestRangeServer::faultStallBody()
{
    m_server.serve("/f/stall.bin", m_patternPath.toStdString());
    m_server.addFault("/f/stall.bin", Fault::stallBody(400));
    RawClient client(m_server.port());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(client.send(request("GET", "/f/stall.bin", "Range: bytes=0-9\r\n")));
    const auto r = client.read(false);
    QVERIFY(r);
    QCOMPARE(r->status, 206);
    QCOMPARE(r->header("content-length"), "10");
    bool closed = false;
    QVERIFY(client.readFor(150, &closed).isEmpty());
    QVERIFY(!closed);
    // then the server gives up on the answer and closes, still without a byte of body
    QVERIFY(client.readFor(2000, &closed).isEmpty());
    QVERIFY(closed);
    QVERIFY(timer.elapsed() >= 390);
}

void TestRangeServer::faultCounts()
{
    m_server.serve("/f/count.bin", m_patternPath.toStdString());
    const QByteArray range = "Range: bytes=0-9\r\n";
    m_server.addFault("/f/count.bin", Fault::ignoreRange(), 2);
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 200);
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 200);
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 206);

    m_server.addFault("/f/count.bin", Fault::withStatus(500), -1);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(fetch("GET", "/f/count.bin", range).status, 500);
    m_server.clearFaults("/f/count.bin");
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 206);

    // two faults of one kind apply one after the other
    m_server.addFault("/f/count.bin", Fault::withStatus(503));
    m_server.addFault("/f/count.bin", Fault::withStatus(502));
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 503);
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 502);
    QCOMPARE(fetch("GET", "/f/count.bin", range).status, 206);

    // faults of different kinds apply together
    m_server.addFault("/f/count.bin", Fault::slow(100));
    m_server.addFault("/f/count.bin", Fault::shortContentRange(4));
    QElapsedTimer timer;
    timer.start();
    const Response both = fetch("GET", "/f/count.bin", range);
    QVERIFY(timer.elapsed() >= 90);
    QCOMPARE(both.header("content-range"), "bytes 0-3/" + QByteArray::number(kPatternSize));
}

void TestRangeServer::countersAndLog()
{
    m_server.resetCounters();
    QCOMPARE(m_server.requestCount(), 0u);
    QCOMPARE(m_server.bodyBytesSent(), 0u);
    QVERIFY(m_server.requests().empty());
    QCOMPARE(fetch("HEAD", "/pattern.bin").status, 200);
    QCOMPARE(fetch("GET", "/pattern.bin?x=1", "Range: bytes=0-99\r\nAuthorization: Bearer t0k\r\n").status, 206);
    const Response missing = fetch("GET", "/missing.bin");
    QCOMPARE(missing.status, 404);
    QCOMPARE(m_server.requestCount(), 3u);
    QCOMPARE(m_server.bodyBytesSent(), uint64_t(100 + missing.body.size()));

    const std::vector<LoggedRequest> log = m_server.requests();
    QCOMPARE(log.size(), 3u);
    const std::string host = "127.0.0.1:" + std::to_string(m_server.port());
    QCOMPARE(log[0].method, "HEAD");
    QCOMPARE(log[0].target, "/pattern.bin");
    QCOMPARE(log[0].range, "");
    QCOMPARE(log[0].host, host);
    QCOMPARE(log[0].status, 200);
    QCOMPARE(log[1].method, "GET");
    QCOMPARE(log[1].target, "/pattern.bin?x=1");
    QCOMPARE(log[1].range, "bytes=0-99");
    QCOMPARE(log[1].authorization, "Bearer t0k");
    QCOMPARE(log[1].status, 206);
    QCOMPARE(log[2].target, "/missing.bin");
    QCOMPARE(log[2].authorization, "");
    QCOMPARE(log[2].status, 404);
}

void TestRangeServer::clientLeavingMidBodyIsHarmless()
{
    m_server.resetCounters();
    {
        RawClient client(m_server.port());
        QVERIFY(client.send(request("GET", "/sparse.bin")));
        const auto r = client.read(false);
        QVERIFY(r);
        QCOMPARE(r->header("content-length"), QByteArray::number(kSparseSize));
        QVERIFY(!client.readFor(50).isEmpty());
    }
    // the server's next send fails with EPIPE or ECONNRESET, not SIGPIPE (which would end this
    // process), and it goes on serving
    QCOMPARE(fetch("GET", "/pattern.bin", "Range: bytes=0-9\r\n").status, 206);
    QVERIFY(m_server.bodyBytesSent() < uint64_t(kSparseSize) / 4);
}

void TestRangeServer::stopIsPromptWithClientsStuck()
{
    RangeServer server;
    QVERIFY(server.start());
    const uint16_t port = server.port();
    server.serve("/sparse.bin", m_sparsePath.toStdString());
    server.serve("/stall.bin", m_patternPath.toStdString());
    server.serve("/slow.bin", m_patternPath.toStdString());
    server.addFault("/stall.bin", Fault::stallBody());
    server.addFault("/slow.bin", Fault::slow(60000));
    const QByteArray host = "Host: 127.0.0.1\r\n";

    RawClient stalled(port);
    QVERIFY(stalled.send("GET /stall.bin HTTP/1.1\r\n" + host + "\r\n"));
    QVERIFY(stalled.read(false));
    RawClient slow(port);
    QVERIFY(slow.send("GET /slow.bin HTTP/1.1\r\n" + host + "\r\n"));
    RawClient idle(port);
    QVERIFY(idle.send("HEAD /sparse.bin HTTP/1.1\r\n" + host + "\r\n"));
    QVERIFY(idle.read(false));
    // asks for 3 GiB and reads none of it: the server blocks in send once the socket buffers fill
    RawClient blocked(port);
    QVERIFY(blocked.send("GET /sparse.bin HTTP/1.1\r\n" + host + "\r\n"));
    RawClient silent(port); // connected, never sends a byte
    QVERIFY(silent.isOpen());
    // every request that was sent has reached the server (the silent client sends none)
    QTRY_COMPARE(server.requestCount(), uint64_t(4));

    QElapsedTimer timer;
    timer.start();
    server.stop();
    QVERIFY2(timer.elapsed() < 1000, QByteArray::number(timer.elapsed()).constData());
    QVERIFY(!server.running());
    QVERIFY(stalled.closedByServer());
    QVERIFY(slow.closedByServer());
    QVERIFY(idle.closedByServer());
    QVERIFY(silent.closedByServer());
    QVERIFY(!RawClient(port).isOpen()); // nothing listens any more

    // the configuration stays; the same port can be listened on again at once
    QVERIFY(server.start(port));
    QCOMPARE(server.port(), port);
    RawClient again(port);
    QVERIFY(again.send("HEAD /sparse.bin HTTP/1.1\r\n" + host + "\r\n"));
    const auto r = again.read(false);
    QVERIFY(r);
    QCOMPARE(r->status, 200);
}

QTEST_GUILESS_MAIN(TestRangeServer)
#include "tst_range_server.moc"
