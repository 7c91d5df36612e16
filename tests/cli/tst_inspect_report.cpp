// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect report` (#45). The Markdown is read by cmark-gfm, the parser GitHub's Markdown comes
// from (with GitHub's extensions), and the HTML by Chromium, headless (the DOM it built); both are
// then checked against ggml's own dump of the file (data/real/manifest.json: keys, values, tensors,
// types, sizes, offsets) and against figures computed here (the KV cache from the hyperparameters).
// Text the file holds that Markdown or HTML would read as markup (a name, a chat template) must come
// out of both readers exactly as it went in.
#include "tests/support/inspect_run.h"
#include "tests/support/temp_files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <QtEndian>

using namespace gguf::test;

namespace {

const QStringList kSections{QStringLiteral("Overview"),      QStringLiteral("Verdict"), QStringLiteral("Metadata"),
                            QStringLiteral("Chat template"), QStringLiteral("Tensors"), QStringLiteral("Type mix"),
                            QStringLiteral("Memory")};

// What a reader made of a report: headings, tables (rows of cell texts, the header first), code
// blocks (class, text), the chart's shares, and every element name seen.
struct Read {
    QStringList h1, h2, sectionIds;
    QList<QList<QStringList>> tables;
    QList<QPair<QString, QString>> code;
    QMap<QString, quint64> chartBytes;
    QSet<QString> elements;
    QString error;

    // The table whose header starts with `first` and holds `column`.
    const QList<QStringList> *table(const QString &column) const
    {
        for (const auto &t : tables)
            if (!t.isEmpty() && t.front().contains(column))
                return &t;
        return nullptr;
    }
};

// Reads XHTML (cmark-gfm's output, or the body of the DOM Chromium serialised) with Qt's XML reader.
Read readXhtml(const QByteArray &xhtml)
{
    Read r;
    QXmlStreamReader xml("<root>" + xhtml + "</root>");
    QString *text = nullptr; // the element whose text is being collected
    QString collected;
    QString codeClass;
    int depth = 0, textDepth = -1;
    while (!xml.atEnd()) {
        const auto token = xml.readNext();
        if (token == QXmlStreamReader::StartElement) {
            ++depth;
            const QString name = xml.name().toString();
            r.elements.insert(name);
            const auto attrs = xml.attributes();
            if (name == u"table")
                r.tables.append(QList<QStringList>());
            else if (name == u"tr" && !r.tables.isEmpty())
                r.tables.back().append(QStringList());
            else if (name == u"section")
                r.sectionIds.append(attrs.value(QStringLiteral("id")).toString());
            else if (name == u"g" && attrs.value(QStringLiteral("class")) == u"share")
                r.chartBytes[attrs.value(QStringLiteral("data-type")).toString()] =
                    attrs.value(QStringLiteral("data-bytes")).toULongLong();
            if (textDepth < 0 && (name == u"td" || name == u"th" || name == u"h1" || name == u"h2" ||
                                  (name == u"code" && attrs.hasAttribute(QStringLiteral("class"))))) {
                textDepth = depth;
                collected.clear();
                codeClass = name == u"code" ? attrs.value(QStringLiteral("class")).toString() : QString();
                text = &collected;
                if (name == u"h1")
                    r.h1.append(QString());
            }
            if (name == u"h1" || name == u"h2" || name == u"td" || name == u"th" || name == u"code")
                r.elements.insert(QStringLiteral("text:") + name);
        } else if (token == QXmlStreamReader::Characters && text) {
            *text += xml.text();
        } else if (token == QXmlStreamReader::EndElement) {
            const QString name = xml.name().toString();
            if (depth == textDepth) {
                if (name == u"h1")
                    r.h1.back() = collected;
                else if (name == u"h2")
                    r.h2.append(collected);
                else if (name == u"code")
                    r.code.append({codeClass, collected});
                else if (!r.tables.isEmpty() && !r.tables.back().isEmpty())
                    r.tables.back().back().append(collected);
                text = nullptr;
                textDepth = -1;
            }
            --depth;
        }
    }
    if (xml.hasError())
        r.error = QStringLiteral("%1 at line %2 column %3")
                      .arg(xml.errorString())
                      .arg(xml.lineNumber())
                      .arg(xml.columnNumber());
    return r;
}

QString tool(const char *name)
{
    return QStandardPaths::findExecutable(QString::fromLatin1(name));
}

// cmark-gfm with the extensions github.com uses, in its default safe mode: Markdown to XHTML.
Read readMarkdown(const QByteArray &markdown, QString &problem)
{
    const QString cmark = tool("cmark-gfm");
    if (cmark.isEmpty()) {
        problem = QStringLiteral("cmark-gfm is not installed (scripts/deps.sh installs it)");
        return {};
    }
    QProcess p;
    p.start(cmark, {"--extension", "table", "--extension", "strikethrough", "--extension", "autolink", "--extension",
                    "tagfilter", "--to", "html"});
    p.write(markdown);
    p.closeWriteChannel();
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        problem = QStringLiteral("cmark-gfm failed: ") + QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    return readXhtml(p.readAllStandardOutput());
}

// Chromium, headless, loads the page from the disk and prints the DOM it built; the body is read.
Read readInBrowser(const QString &html, const QString &screenshot, QString &problem)
{
    const QString chromium = tool("chromium");
    if (chromium.isEmpty()) {
        problem = QStringLiteral("chromium is not installed (scripts/deps.sh installs it)");
        return {};
    }
    const QStringList common{"--headless",
                             "--no-sandbox",
                             "--disable-gpu",
                             "--hide-scrollbars",
                             "--no-first-run",
                             "--disable-extensions",
                             "--user-data-dir=" + html + ".profile"};
    QProcess p;
    p.start(chromium, common + QStringList{"--dump-dom", "file://" + html});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        problem = QStringLiteral("chromium failed: ") + QString::fromUtf8(p.readAllStandardError().right(2000));
        return {};
    }
    const QByteArray dom = p.readAllStandardOutput();
    const qsizetype start = dom.indexOf("<body>"), end = dom.lastIndexOf("</body>");
    if (start < 0 || end < start) {
        problem = QStringLiteral("no body in the DOM Chromium printed");
        return {};
    }
    if (!screenshot.isEmpty()) {
        QProcess shot;
        shot.start(chromium,
                   common + QStringList{"--window-size=1200,1600", "--screenshot=" + screenshot, "file://" + html});
        if (!shot.waitForFinished(120000) || shot.exitCode() != 0) {
            problem = QStringLiteral("chromium's screenshot failed");
            return {};
        }
    }
    return readXhtml(dom.mid(start, end + 7 - start));
}

QJsonObject manifestEntry(const QString &file)
{
    QFile f(dataPath(u"real/manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    for (const QJsonValue v : QJsonDocument::fromJson(f.readAll()).object().value(u"files").toArray())
        if (v.toObject().value(u"file").toString() == file)
            return v.toObject();
    return {};
}

quint64 number(QString cell)
{
    return cell.remove(u',').section(u' ', 0, 0).toULongLong();
}

// Everything a reader made of the report of tiny-llama-q4_k_m agrees with ggml's dump of it.
void checkAgainstManifest(const Read &r, const QJsonObject &m)
{
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.h2, kSections);
    QCOMPARE(r.h1, QStringList{QStringLiteral("GGUF report: tiny-llama-q4_k_m.gguf")});

    // the tensor table: every tensor in file order
    const QJsonArray tensors = m.value(u"tensors").toArray();
    const auto *t = r.table(QStringLiteral("Data offset"));
    QVERIFY(t);
    QCOMPARE(t->front(), (QStringList{"#", "Name", "Type", "Shape", "Elements", "Bytes", "Data offset"}));
    QCOMPARE(t->size() - 1, tensors.size());
    QMap<QString, quint64> bytesByType;
    for (qsizetype i = 0; i < tensors.size(); ++i) {
        const QJsonObject e = tensors[i].toObject();
        const QStringList &row = (*t)[i + 1];
        QCOMPARE(row[1], e.value(u"name").toString());
        QCOMPARE(row[2].toLower(), e.value(u"ggml_type_name").toString().toLower());
        QStringList dims;
        quint64 elements = 1;
        for (const QJsonValue d : e.value(u"dims").toArray()) {
            dims << QString::number(d.toInteger());
            elements *= quint64(d.toInteger());
        }
        QCOMPARE(row[3], "[" + dims.join(u", ") + "]");
        QCOMPARE(number(row[4]), elements);
        QCOMPARE(number(row[5]), quint64(e.value(u"n_bytes").toInteger()));
        QCOMPARE(number(row[6]),
                 quint64(e.value(u"data_offset").toInteger() - m.value(u"data_section_offset").toInteger()));
        bytesByType[e.value(u"ggml_type_name").toString().toUpper()] += quint64(e.value(u"n_bytes").toInteger());
    }

    // the metadata table: every pair, scalars in full, arrays by count and first elements
    const QJsonArray kv = m.value(u"kv").toArray();
    const auto *meta = r.table(QStringLiteral("Key"));
    QVERIFY(meta);
    QCOMPARE(meta->size() - 1, kv.size());
    for (qsizetype i = 0; i < kv.size(); ++i) {
        const QJsonObject e = kv[i].toObject();
        const QStringList &row = (*meta)[i + 1];
        QCOMPARE(row[1], e.value(u"key").toString());
        const QString type = e.value(u"type").toString();
        if (type == u"array") {
            QCOMPARE(number(row[3]), quint64(e.value(u"count").toInteger()));
            QVERIFY2(row[2].endsWith(e.value(u"array_type").toString(), Qt::CaseInsensitive), qPrintable(row[2]));
            const QJsonArray head = e.value(u"head").toArray();
            for (qsizetype h = 0; h < std::min<qsizetype>(head.size(), 8); ++h) {
                const QString item = head[h].isString() ? "\"" + head[h].toString() + "\"" : QString();
                if (!item.isEmpty())
                    QVERIFY2(row[3].contains(item), qPrintable(row[3] + " lacks " + item));
            }
        } else if (type == u"string") {
            QCOMPARE(row[3], e.value(u"value").toString());
        } else if (type == u"float32") {
            QCOMPARE(row[3].toFloat(), float(e.value(u"value").toDouble()));
        } else if (type == u"bool") {
            QCOMPARE(row[3], e.value(u"value").toBool() ? u"true" : u"false");
        } else {
            QCOMPARE(row[3].toLongLong(), e.value(u"value").toInteger());
        }
    }

    // the type mix: bytes by type, the table's and the chart's
    const auto *mix = r.table(QStringLiteral("Share of bytes"));
    QVERIFY(mix);
    QCOMPARE(mix->size() - 1, bytesByType.size());
    for (qsizetype i = 1; i < mix->size(); ++i)
        QCOMPARE(number((*mix)[i][3]), bytesByType.value((*mix)[i][0]));

    // the KV cache at the trained context: F16 K and V for every layer, n_embd / heads · kv heads wide
    QMap<QString, qint64> hp;
    for (const QJsonValue v : kv)
        hp[v.toObject().value(u"key").toString()] = v.toObject().value(u"value").toInteger();
    const qint64 kvBytes = hp["llama.context_length"] * hp["llama.block_count"] * 2 * 2 *
                           (hp["llama.embedding_length"] / hp["llama.attention.head_count"]) *
                           hp["llama.attention.head_count_kv"];
    const auto *memory = r.table(QStringLiteral("CPU only: RAM"));
    QVERIFY(memory);
    QCOMPARE((*memory)[2][0], QStringLiteral("KV cache"));
    QCOMPARE((*memory)[2][1], QString::number(double(kvBytes) / 1048576.0, 'f', 2) + QStringLiteral(" MiB"));
}

} // namespace

class TestInspectReport : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_model;
    QJsonObject m_manifest;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = dataPath(u"real/tiny-llama-q4_k_m.gguf");
        m_manifest = manifestEntry(QStringLiteral("tiny-llama-q4_k_m.gguf"));
        QVERIFY(!m_manifest.isEmpty());
    }

    // The Markdown as GitHub's parser reads it: every section, and what ggml's dump says.
    void markdownOnGitHub()
    {
        const InspectRun run = inspect({"report", m_model});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        QString problem;
        const Read r = readMarkdown(run.out, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        checkAgainstManifest(r, m_manifest);
        // the chart as Mermaid (drawn by GitHub): each type's bytes
        const auto chart =
            std::find_if(r.code.begin(), r.code.end(), [](const auto &c) { return c.first == u"language-mermaid"; });
        QVERIFY(chart != r.code.end());
        QVERIFY(chart->second.startsWith(u"pie"));
        const auto *mix = r.table(QStringLiteral("Share of bytes"));
        for (qsizetype i = 1; i < mix->size(); ++i)
            QVERIFY2(chart->second.contains("\"" + (*mix)[i][0] + "\" : " + QString::number(number((*mix)[i][3]))),
                     qPrintable(chart->second));
        // -o F.md writes the same document
        const QString md = m_dir.filePath(QStringLiteral("r.md"));
        QCOMPARE(inspect({"report", m_model, "-o", md}).exitCode, 0);
        QCOMPARE(readFile(md), run.out);
    }

    // The HTML page as a browser engine builds it, offline: every section, the chart drawn inline.
    void htmlInBrowser()
    {
        const QString html = m_dir.filePath(QStringLiteral("r.html"));
        const InspectRun run = inspect({"report", m_model, "-o", html});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.isEmpty());
        const QByteArray page = readFile(html);
        // self-contained: nothing to fetch (no src, no stylesheet link, no script; links only to its own sections)
        const Read own = readXhtml(page.mid(page.indexOf("<html")));
        QVERIFY2(own.error.isEmpty(), qPrintable(own.error)); // well-formed as XML too
        QVERIFY(!own.elements.contains(QStringLiteral("script")) && !own.elements.contains(QStringLiteral("link")) &&
                !own.elements.contains(QStringLiteral("img")));
        QVERIFY(!page.contains(" src=") && !page.contains("url("));
        QCOMPARE(page.count("href=\""), page.count("href=\"#"));

        QString problem;
        const QString shot = m_dir.filePath(QStringLiteral("r.png"));
        const Read r = readInBrowser(html, shot, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        checkAgainstManifest(r, m_manifest);
        QCOMPARE(r.sectionIds,
                 (QStringList{"overview", "verdict", "metadata", "chat-template", "tensors", "type-mix", "memory"}));
        QVERIFY(r.elements.contains(QStringLiteral("svg")) && r.elements.contains(QStringLiteral("rect")));
        const auto *mix = r.table(QStringLiteral("Share of bytes"));
        QCOMPARE(r.chartBytes.size(), mix->size() - 1);
        for (qsizetype i = 1; i < mix->size(); ++i)
            QCOMPARE(r.chartBytes.value((*mix)[i][0]), number((*mix)[i][3]));
        // the browser drew it: a PNG of the window's size
        const QByteArray png = readFile(shot);
        QVERIFY(png.startsWith("\x89PNG"));
        QCOMPARE(qFromBigEndian<quint32>(png.constData() + 16), 1200u);
    }

    // Text that is markup in Markdown or HTML comes out of both readers as it went in; the chat
    // template in full.
    void markupInTheFileStaysText()
    {
        const QString tmpl =
            QStringLiteral("{%- for m in messages -%}\n\t<|im_start|>{{ m['role'] }} | ``` `x` ````\n"
                           "<script>alert(1)</script> &amp; &lt; @user $x$ :smile: #12 ~~s~~ *e* _u_ [l](http://e.com)"
                           "\n{%- endfor -%}\n");
        const QString name = QStringLiteral("a|b <i>x</i> @user $x$ :smile: [l](http://e.com) *e* &amp; #3");
        const QString tmplFile = m_dir.filePath(QStringLiteral("t.jinja"));
        QVERIFY(writeBytes(tmplFile, tmpl.toUtf8()));
        const QString edited = m_dir.filePath(QStringLiteral("edited.gguf"));
        const InspectRun set = inspect(
            {"set", m_model, "general.name=" + name, "--chat-template-file", tmplFile, "--force", "-o", edited});
        QVERIFY2(set.exitCode == 0, set.err.constData());

        QString problem;
        const Read md = readMarkdown(inspect({"report", edited}).out, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QString html = m_dir.filePath(QStringLiteral("edited.html"));
        QCOMPARE(inspect({"report", edited, "-o", html}).exitCode, 0);
        const Read page = readInBrowser(html, {}, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        for (const Read *r : {&md, &page}) {
            QVERIFY2(r->error.isEmpty(), qPrintable(r->error));
            QCOMPARE(r->h2, kSections);
            QVERIFY(!r->elements.contains(QStringLiteral("script")) && !r->elements.contains(QStringLiteral("i")));
            const auto *overview = r->table(QStringLiteral("Field"));
            QVERIFY(overview);
            const auto nameRow = std::find_if(overview->begin(), overview->end(),
                                              [](const QStringList &row) { return row.value(0) == u"name"; });
            QVERIFY(nameRow != overview->end());
            QCOMPARE(nameRow->value(1), name);
            const auto code = std::find_if(r->code.begin(), r->code.end(),
                                           [](const auto &c) { return c.first == u"language-jinja"; });
            QVERIFY(code != r->code.end());
            QCOMPARE(code->second, tmpl);
            QCOMPARE(r->table(QStringLiteral("Key"))->size() - 1, 26); // 25 pairs and the template
        }
    }

    // A damaged file is reported as far as it parses, with llama.cpp's refusal; a split set with its
    // shards, a missing one named.
    void damagedAndSplit()
    {
        const QByteArray bytes = readFile(m_model);
        const QString cut = m_dir.filePath(QStringLiteral("cut.gguf"));
        QVERIFY(writeBytes(cut, bytes.left(bytes.size() - 4096)));
        InspectRun run = inspect({"report", cut});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("llama.cpp would refuse this file"), run.out.left(3000).constData());

        const QString prefix = m_dir.filePath(QStringLiteral("part"));
        QCOMPARE(inspect({"split", m_model, "-o", prefix, "--split-max-tensors", "20"}).exitCode, 0);
        const QString first = prefix + QStringLiteral("-00001-of-00002.gguf");
        QString problem;
        Read r = readMarkdown(inspect({"report", first}).out, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const auto *shards = r.table(QStringLiteral("Problem"));
        QVERIFY(shards);
        QCOMPARE(shards->size(), 3);
        QCOMPARE(r.table(QStringLiteral("Data offset"))->front().value(1), QStringLiteral("Shard"));
        QCOMPARE(r.table(QStringLiteral("Data offset"))->size() - 1, m_manifest.value(u"tensors").toArray().size());
        QVERIFY(QFile::remove(prefix + QStringLiteral("-00002-of-00002.gguf")));
        r = readMarkdown(inspect({"report", first}).out, problem);
        const auto *findings = r.table(QStringLiteral("Code"));
        QVERIFY(findings);
        QVERIFY(std::any_of(findings->begin(), findings->end(),
                            [](const QStringList &row) { return row.contains(QStringLiteral("shard_missing")); }));
    }

    // A Hugging Face checkpoint's report (#43): its tensors as each shard's own JSON header lists
    // them (read here with QJsonDocument), config.json's fields, the chat template of the
    // tokenizer_config.json beside it in full, and the memory of the converter's GGUF — the same
    // table as the report of the GGUF llama.cpp's converter made of it (hf-oracle).
    void checkpointReport()
    {
        const QString source = dataPath(u"hf-oracle/mixtral-bf16");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const QString &f : QDir(source).entryList(QDir::Files))
            QVERIFY(QFile::copy(source + u'/' + f, dir.filePath(f)));
        const QString tmpl = QStringLiteral("{% for m in messages %}<|{{ m['role'] }}|> | `x` @user $y$\n{% endfor %}");
        QJsonObject tokenizerConfig{{"chat_template", tmpl}};
        QVERIFY(writeBytes(dir.filePath("tokenizer_config.json"), QJsonDocument(tokenizerConfig).toJson()));

        QString problem;
        const InspectRun run = inspect({"report", dir.path()});
        QCOMPARE(run.exitCode, 0);
        const Read md = readMarkdown(run.out, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QString html = dir.filePath(QStringLiteral("r.html"));
        QCOMPARE(inspect({"report", dir.path(), "-o", html}).exitCode, 0);
        const Read page = readInBrowser(html, {}, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        // the shards' headers, read here
        QList<QPair<QString, QJsonObject>> expected;
        for (const char *shard : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
            const QByteArray bytes = readFile(dir.filePath(shard));
            const quint64 length = qFromLittleEndian<quint64>(bytes.constData());
            const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, qsizetype(length))).object();
            for (auto it = header.begin(); it != header.end(); ++it)
                if (it.key() != u"__metadata__")
                    expected.append({it.key(), it.value().toObject()});
        }
        const QJsonObject config =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("config.json")))).object();
        const QByteArray gguf = inspect({"report", dataPath(u"hf-oracle/mixtral-bf16.gguf")}).out;
        const Read converted = readMarkdown(gguf, problem);
        for (const Read *r : {&md, &page}) {
            QVERIFY2(r->error.isEmpty(), qPrintable(r->error));
            QCOMPARE(r->h2, kSections);
            const auto *t = r->table(QStringLiteral("Dtype"));
            QVERIFY(t);
            QCOMPARE(t->size() - 1, expected.size());
            for (const auto &tensor : expected) {
                const QString &name = tensor.first;
                const QJsonObject &entry = tensor.second;
                const auto row =
                    std::find_if(t->begin(), t->end(), [&](const QStringList &x) { return x.value(2) == name; });
                QVERIFY2(row != t->end(), qPrintable(name));
                QCOMPARE(row->value(3), entry["dtype"].toString());
                QStringList shape;
                for (const QJsonValue d : entry["shape"].toArray())
                    shape << QString::number(d.toInteger());
                QCOMPARE(row->value(4), "[" + shape.join(u", ") + "]");
                const QJsonArray offsets = entry["data_offsets"].toArray();
                QCOMPARE(number(row->value(6)), quint64(offsets[1].toInteger() - offsets[0].toInteger()));
                QCOMPARE(number(row->value(7)), quint64(offsets[0].toInteger()));
            }
            const auto *fields = r->table(QStringLiteral("Key"));
            QVERIFY(fields);
            for (const char *key : {"model_type", "hidden_size", "num_local_experts"}) {
                const auto row = std::find_if(fields->begin(), fields->end(),
                                              [&](const QStringList &x) { return x.value(0) == QLatin1String(key); });
                QVERIFY2(row != fields->end(), key);
                const QJsonValue v = config[QLatin1String(key)];
                QCOMPARE(row->value(1), v.isString() ? "\"" + v.toString() + "\"" : QString::number(v.toInteger()));
            }
            const auto code = std::find_if(r->code.begin(), r->code.end(),
                                           [](const auto &c) { return c.first == u"language-jinja"; });
            QVERIFY(code != r->code.end());
            // a fenced block always ends its last line (CommonMark §4.5); the HTML keeps the text as it is
            QCOMPARE(code->second, r == &md ? tmpl + u'\n' : tmpl);
            QCOMPARE(*r->table(QStringLiteral("CPU only: RAM")), *converted.table(QStringLiteral("CPU only: RAM")));
        }
        QCOMPARE(inspect({"report", dir.path(), "-o", dir.filePath(QStringLiteral("config.json"))}).exitCode, 2);
    }

    // Usage: only .md and .html; never over the model; a write that fails says so and leaves nothing.
    void refusals()
    {
        const QByteArray before = QCryptographicHash::hash(readFile(m_model), QCryptographicHash::Sha256);
        QCOMPARE(inspect({"report", m_model, "-o", m_dir.filePath(QStringLiteral("r.txt"))}).exitCode, 2);
        const QString copy = m_dir.filePath(QStringLiteral("copy.gguf"));
        QVERIFY(QFile::copy(m_model, copy));
        const QString renamed = m_dir.filePath(QStringLiteral("copy.md"));
        QVERIFY(QFile::rename(copy, renamed)); // a model named .md is still never written over
        const InspectRun over = inspect({"report", renamed, "-o", renamed});
        QCOMPARE(over.exitCode, 2);
        QVERIFY(over.err.contains("refusing"));
        QCOMPARE(QCryptographicHash::hash(readFile(renamed), QCryptographicHash::Sha256), before);
        const InspectRun nowhere = inspect({"report", m_model, "-o", m_dir.filePath(QStringLiteral("no/such/r.md"))});
        QCOMPARE(nowhere.exitCode, 1);
        QVERIFY(nowhere.err.contains("cannot write"));
        QCOMPARE(inspect({"report", m_dir.filePath(QStringLiteral("absent.gguf"))}).exitCode, 1);
        QCOMPARE(QCryptographicHash::hash(readFile(m_model), QCryptographicHash::Sha256), before);
    }
};

QTEST_GUILESS_MAIN(TestInspectReport)
#include "tst_inspect_report.moc"
