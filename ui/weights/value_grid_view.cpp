// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/value_grid_view.h"

#include "core/format/gguf_file.h"
#include "ui/common/compact_rows.h"
#include "ui/common/job_tracker.h"
#include "ui/weights/value_grid_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableView>
#include <QThreadPool>
#include <QToolButton>
#include <QVBoxLayout>

namespace {

QString number(quint64 n)
{
    return QLocale().toString(static_cast<qulonglong>(n));
}

QToolButton *arrowButton(Qt::ArrowType arrow, const QString &tip, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setArrowType(arrow);
    button->setToolTip(tip);
    button->setAutoRaise(true);
    return button;
}

} // namespace

ValueGridView::ValueGridView(QWidget *parent)
    : QWidget(parent), m_model(new ValueGridModel(this)), m_view(new QTableView(this)), m_goTo(new QLineEdit(this)),
      m_page(new QLabel(this)), m_problem(new QLabel(this)),
      m_previousRows(arrowButton(Qt::UpArrow, tr("Previous page of rows"), this)),
      m_nextRows(arrowButton(Qt::DownArrow, tr("Next page of rows"), this)),
      m_previousColumns(arrowButton(Qt::LeftArrow, tr("Previous page of columns"), this)),
      m_nextColumns(arrowButton(Qt::RightArrow, tr("Next page of columns"), this)),
      m_fetch(new JobTracker(this, QThreadPool::globalInstance()))
{
    // a remote file's cells arrive on a worker; the grid shows "…" until then
    connect(m_model, &ValueGridModel::bytesWanted, this, [this](quint64 offset, quint64 size) {
        const auto file = m_model->file();
        if (!file)
            return;
        m_fetch->start(
            tr("Fetching values"),
            [file, offset, size](const gguf::ProgressFn &progress) { return file->acquire(offset, size, progress); },
            [this, file](gguf::ByteLease bytes) {
                if (file != m_model->file())
                    return;
                if (bytes || bytes.error().kind != gguf::ErrorKind::Cancelled)
                    m_model->holdBytes(bytes);
                if (!bytes && bytes.error().kind != gguf::ErrorKind::Cancelled)
                    m_page->setText(QString::fromStdString(bytes.error().message));
            });
    });
    m_view->setModel(m_model);
    // a typed character would start QAbstractItemView's type-ahead search, which reads the column's
    // every row on the GUI thread (a page holds up to 2^20 rows: seconds of a frozen window, found
    // by the monkey test, tests/monkey); Go to is the way to a value here
    m_view->installEventFilter(this);
    m_view->setWordWrap(false);
    m_view->setCornerButtonEnabled(false);
    m_view->horizontalHeader()->setDefaultSectionSize(
        fontMetrics().horizontalAdvance(QStringLiteral("-0.00000000e-00")));
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    setCompactRows(m_view);
    m_goTo->setPlaceholderText(tr("row  ·  row, column  ·  #element"));
    m_goTo->setClearButtonEnabled(true);
    m_goTo->setMinimumWidth(fontMetrics().horizontalAdvance(m_goTo->placeholderText()) + 40);
    m_problem->setAlignment(Qt::AlignCenter);
    m_problem->setEnabled(false);
    m_problem->hide();
    auto *go = new QPushButton(tr("&Go"), this);
    auto *goLabel = new QLabel(tr("Go &to:"), this);
    goLabel->setBuddy(m_goTo);

    auto *bar = new QHBoxLayout;
    bar->addWidget(goLabel);
    bar->addWidget(m_goTo);
    bar->addWidget(go);
    bar->addSpacing(12);
    bar->addWidget(m_page, 1);
    bar->addWidget(m_previousRows);
    bar->addWidget(m_nextRows);
    bar->addWidget(m_previousColumns);
    bar->addWidget(m_nextColumns);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_problem, 1);

    const auto goToTyped = [this] {
        if (!goTo(m_goTo->text()))
            m_page->setText(tr("Type a row, “row, column” or “#element” inside the tensor."));
    };
    connect(m_goTo, &QLineEdit::returnPressed, this, goToTyped);
    connect(go, &QPushButton::clicked, this, goToTyped);
    connect(m_previousRows, &QToolButton::clicked, this, [this] { stepPage(-1, 0); });
    connect(m_nextRows, &QToolButton::clicked, this, [this] { stepPage(1, 0); });
    connect(m_previousColumns, &QToolButton::clicked, this, [this] { stepPage(0, -1); });
    connect(m_nextColumns, &QToolButton::clicked, this, [this] { stepPage(0, 1); });
    connect(m_model, &ValueGridModel::pageChanged, this, &ValueGridView::updatePageControls);
    updatePageControls();
}

bool ValueGridView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        const bool typed = !key->text().isEmpty() && key->text().at(0).isPrint() && !key->text().at(0).isSpace() &&
                           !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
        if (typed)
            return true;
    }
    return QWidget::eventFilter(watched, event);
}

void ValueGridView::setTensor(const TensorHandle &tensor)
{
    if (tensor.isValid())
        m_model->setTensor(tensor.fileShared(), &tensor.info());
    else
        m_model->setTensor(nullptr, nullptr);
}

bool ValueGridView::goTo(const QString &text)
{
    // Digit groups may be written with _ or ' (1_000_000).
    QString typed = text.trimmed();
    typed.remove(u'_').remove(u'\'');
    static const QRegularExpression element(QStringLiteral("^#\\s*(\\d+)$"));
    static const QRegularExpression cell(QStringLiteral("^(\\d+)(?:\\s*[,;\\s]\\s*(\\d+))?$"));
    QModelIndex target;
    if (const QRegularExpressionMatch m = element.match(typed); m.hasMatch()) {
        bool ok = false;
        const quint64 e = m.captured(1).toULongLong(&ok);
        if (ok)
            target = m_model->locateElement(e);
    } else if (const QRegularExpressionMatch c = cell.match(typed); c.hasMatch()) {
        bool okRow = false, okColumn = true;
        const quint64 row = c.captured(1).toULongLong(&okRow);
        const quint64 column = c.captured(2).isEmpty() ? 0 : c.captured(2).toULongLong(&okColumn);
        if (okRow && okColumn)
            target = m_model->locate(row, column);
    }
    if (!target.isValid())
        return false;
    showPosition(target);
    return true;
}

void ValueGridView::showPosition(const QModelIndex &index)
{
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
    m_view->setFocus();
}

void ValueGridView::stepPage(int rows, int columns)
{
    const ValueGridModel &m = *m_model;
    const auto step = [](quint64 first, quint64 page, quint64 total, int direction) -> quint64 {
        if (direction < 0)
            return first >= page ? first - page : 0;
        if (direction > 0 && first + page < total)
            return first + page;
        return first;
    };
    m_model->showPage(step(m.firstRow(), m.pageRows(), m.tensorRows(), rows),
                      step(m.firstColumn(), m.pageColumns(), m.tensorColumns(), columns));
    m_view->scrollToTop();
}

QString ValueGridView::pageText() const
{
    return m_page->text();
}

void ValueGridView::updatePageControls()
{
    const ValueGridModel &m = *m_model;
    const bool empty = m.tensorRows() == 0 || m.tensorColumns() == 0;
    m_problem->setText(!m.problem().isEmpty() ? m.problem()
                       : m.tensor()           ? tr("This tensor has no values.")
                                              : tr("Select a tensor to see its values."));
    m_problem->setVisible(empty);
    m_view->setVisible(!empty);
    const bool rowPages = m.tensorRows() > m.pageRows();
    const bool columnPages = m.tensorColumns() > m.pageColumns();
    m_previousRows->setVisible(rowPages);
    m_nextRows->setVisible(rowPages);
    m_previousColumns->setVisible(columnPages);
    m_nextColumns->setVisible(columnPages);
    m_previousRows->setEnabled(m.firstRow() > 0);
    m_nextRows->setEnabled(m.firstRow() + m.pageRows() < m.tensorRows());
    m_previousColumns->setEnabled(m.firstColumn() > 0);
    m_nextColumns->setEnabled(m.firstColumn() + m.pageColumns() < m.tensorColumns());
    if (empty) {
        m_page->clear();
        return;
    }
    QString text = tr("%1 rows × %2 columns").arg(number(m.tensorRows()), number(m.tensorColumns()));
    if (rowPages || columnPages) {
        const quint64 lastRow = std::min(m.firstRow() + m.pageRows(), m.tensorRows()) - 1;
        const quint64 lastColumn = std::min(m.firstColumn() + m.pageColumns(), m.tensorColumns()) - 1;
        text += tr(" — showing rows %1–%2, columns %3–%4")
                    .arg(number(m.firstRow()), number(lastRow), number(m.firstColumn()), number(lastColumn));
    }
    m_page->setText(text);
}
