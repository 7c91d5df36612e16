// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_find_bar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>

HexFindBar::HexFindBar(QWidget *parent)
    : QWidget(parent), m_goTo(new QLineEdit(this)), m_find(new QLineEdit(this)), m_mode(new QComboBox(this)),
      m_previous(new QToolButton(this)), m_next(new QToolButton(this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_goToData(new QPushButton(tr("Go to &Data"), this)),
      m_bytesPerRow(new QComboBox(this)), m_notes(new QCheckBox(tr("&Notes"), this))
{
    m_goTo->setPlaceholderText(tr("Go to offset (Ctrl+G): 0x1f, data+0x100…"));
    m_goTo->setClearButtonEnabled(true);
    m_goTo->setAcceptDrops(false);
    m_goTo->setToolTip(tr("Decimal or 0x hex; relative to the data region (data+0x100), the end (end-16) "
                          "or the cursor (+32, -0x10)"));
    connect(m_goTo, &QLineEdit::returnPressed, this, [this] { emit goToRequested(m_goTo->text()); });

    m_find->setPlaceholderText(tr("Find…"));
    m_find->setClearButtonEnabled(true);
    m_find->setAcceptDrops(false);
    connect(m_find, &QLineEdit::returnPressed, this, [this] { requestFind(gguf::SearchDirection::Forward); });
    m_mode->addItem(tr("Hex bytes"));
    m_mode->addItem(tr("Text"));
    m_mode->setToolTip(tr("Find hex bytes (47 47 55 46) or text (its UTF-8 bytes)"));
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setToolTip(tr("Find the previous match (before the cursor)"));
    m_next->setArrowType(Qt::RightArrow);
    m_next->setToolTip(tr("Find the next match (after the cursor)"));
    connect(m_previous, &QToolButton::clicked, this, [this] { requestFind(gguf::SearchDirection::Backward); });
    connect(m_next, &QToolButton::clicked, this, [this] { requestFind(gguf::SearchDirection::Forward); });
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(120);
    m_progress->setTextVisible(false);
    connect(m_cancel, &QPushButton::clicked, this, &HexFindBar::cancelRequested);
    setSearching(false);

    m_goToData->setToolTip(tr("Select a tensor (in the table or here) to jump to its data"));
    connect(m_goToData, &QPushButton::clicked, this, &HexFindBar::goToDataRequested);
    setGoToDataEnabled(false);

    for (int bytes : {8, 16, 32})
        m_bytesPerRow->addItem(tr("%1 bytes/row").arg(bytes), bytes);
    m_bytesPerRow->setCurrentIndex(1);
    connect(m_bytesPerRow, &QComboBox::currentIndexChanged, this, [this] { emit bytesPerRowChanged(bytesPerRow()); });
    m_notes->setChecked(true);
    m_notes->setToolTip(tr("Show the fields that start in each row"));
    connect(m_notes, &QCheckBox::toggled, this, &HexFindBar::notesToggled);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_goTo, 2);
    layout->addSpacing(8);
    layout->addWidget(m_find, 2);
    layout->addWidget(m_mode);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    layout->addSpacing(8);
    layout->addWidget(m_goToData);
    layout->addWidget(m_bytesPerRow);
    layout->addWidget(m_notes);
}

void HexFindBar::requestFind(gguf::SearchDirection direction)
{
    emit findRequested(m_find->text(), m_mode->currentIndex() == 0, direction);
}

void HexFindBar::findNext()
{
    if (m_find->text().isEmpty())
        focusFind();
    else
        requestFind(gguf::SearchDirection::Forward);
}

void HexFindBar::findPrevious()
{
    if (m_find->text().isEmpty())
        focusFind();
    else
        requestFind(gguf::SearchDirection::Backward);
}

void HexFindBar::focusGoTo()
{
    m_goTo->setFocus(Qt::ShortcutFocusReason);
    m_goTo->selectAll();
}

void HexFindBar::focusFind()
{
    m_find->setFocus(Qt::ShortcutFocusReason);
    m_find->selectAll();
}

void HexFindBar::setSearching(bool searching)
{
    m_progress->setVisible(searching);
    m_cancel->setVisible(searching);
    if (!searching)
        m_progress->setValue(0);
}

void HexFindBar::setSearchProgress(int permille)
{
    m_progress->setValue(permille);
}

void HexFindBar::setGoToDataEnabled(bool enabled, const QString &toolTip)
{
    m_goToData->setEnabled(enabled);
    if (!toolTip.isEmpty())
        m_goToData->setToolTip(toolTip);
}

void HexFindBar::setFindMode(bool hex)
{
    m_mode->setCurrentIndex(hex ? 0 : 1);
}

void HexFindBar::setFindText(const QString &text)
{
    m_find->setText(text);
}

void HexFindBar::setBytesPerRow(int bytes)
{
    const int index = m_bytesPerRow->findData(bytes);
    if (index >= 0)
        m_bytesPerRow->setCurrentIndex(index);
}

int HexFindBar::bytesPerRow() const
{
    return m_bytesPerRow->currentData().toInt();
}
