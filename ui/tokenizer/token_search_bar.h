// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/vocab/token_search.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;

/// The search controls above the vocabulary and the merges tables: the text, what it is (text,
/// regular expression, id, hex bytes), where to look (stored or decoded text), case, and for
/// tokens a type filter. Any change announces a new query.
class TokenSearchBar : public QWidget {
    Q_OBJECT
public:
    enum class Target { Tokens, Merges };

    explicit TokenSearchBar(Target target, QWidget *parent = nullptr);

    gguf::TokenSearch::Query query() const;
    /// Shows `query` and announces it once.
    void setQuery(const gguf::TokenSearch::Query &query);
    /// Marks the text as not understood and says why in its tooltip; an empty message clears that.
    void setError(const QString &message);
    /// Why `search` cannot run, in words ("Bad regular expression: … (at character 4)"); empty when it can.
    static QString errorText(const gguf::TokenSearch &search);
    /// Puts the keyboard focus into the text box.
    void focusSearch();

    QLineEdit *lineEdit() const { return m_text; }

signals:
    void queryChanged();

private:
    void updatePlaceholder();

    Target m_target;
    QLineEdit *m_text;
    QComboBox *m_mode;
    QComboBox *m_field;
    QCheckBox *m_case;
    QComboBox *m_type = nullptr;
};
