// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/tensor_handle.h"
#include "ui/weights/weight_view.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;
class JobTracker;
class ValueGridModel;

/// The dequantized values of the current tensor as a table of rows × ne[0] columns, a page at a
/// time, with a "go to" box ("row", "row, column" or "#element") and page buttons.
class ValueGridView : public QWidget, public WeightView {
    Q_OBJECT
public:
    explicit ValueGridView(QWidget *parent = nullptr);

    void setTensor(const TensorHandle &tensor) override;

    /// Goes to a position typed as "row", "row, column" or "#element"; false when it is not one.
    bool goTo(const QString &text);

    ValueGridModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString pageText() const;

protected:
    /// Keeps typed characters from the grid's type-ahead search (see the constructor).
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showPosition(const QModelIndex &index);
    void updatePageControls();
    void stepPage(int rows, int columns);

    ValueGridModel *m_model;
    QTableView *m_view;
    QLineEdit *m_goTo;
    QLabel *m_page;
    QLabel *m_problem;
    QToolButton *m_previousRows;
    QToolButton *m_nextRows;
    QToolButton *m_previousColumns;
    QToolButton *m_nextColumns;
    JobTracker *m_fetch; ///< fetches the cells on screen of a remote file
};
