// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

#include <functional>

/// Tokens drawn as coloured chips that flow like text: each chip shows what the token stands for
/// (invisible characters made visible) over its id. Hovering shows a tooltip from a callback,
/// clicking emits tokenClicked(). Laid out for the widget's width; put it in a QScrollArea.
class TokenChips : public QWidget {
    Q_OBJECT
public:
    struct Chip {
        qint32 id = 0;
        QString text;         ///< the token's text, made visible
        bool special = false; ///< a control, unknown or user-defined token
    };

    explicit TokenChips(QWidget *parent = nullptr);

    void setChips(QVector<Chip> chips);
    const QVector<Chip> &chips() const { return m_chips; }
    /// Builds the tooltip of chip `index` when the mouse rests on it.
    void setToolTipProvider(std::function<QString(int index)> provider) { m_toolTip = std::move(provider); }
    /// The chip at `pos` (widget coordinates), or -1.
    int chipAt(QPoint pos) const;
    QRect chipRect(int index) const { return m_rects.value(index); }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;

signals:
    void tokenClicked(qint32 id);

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    /// Places the chips for `width`; returns the height they take.
    int layoutFor(int width, QVector<QRect> *rects) const;
    QSize chipSize(const Chip &chip) const;

    QVector<Chip> m_chips;
    QVector<QRect> m_rects;
    std::function<QString(int)> m_toolTip;
    int m_hovered = -1;
};
