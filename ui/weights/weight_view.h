// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>

class JobTracker;
class QCustomPlot;
struct TensorHandle;

/// One view of the Weights page (histogram, compare, heatmap, per layer, values), as the page
/// drives them all alike: a tensor in, the runner of its background computation for the busy
/// state, and its plot for export.
class WeightView {
public:
    virtual ~WeightView() = default;

    /// Shows `tensor` (invalid: nothing), starting whatever computation the view needs.
    virtual void setTensor(const TensorHandle &tensor) = 0;
    /// The runner of the view's background computation; null when it computes nothing.
    virtual JobTracker *tracker() const { return nullptr; }
    /// Every runner of the view's computations (tracker() alone unless the view has more).
    virtual QList<JobTracker *> trackers() const
    {
        JobTracker *t = tracker();
        return t ? QList<JobTracker *>{t} : QList<JobTracker *>{};
    }
    /// The plot on show, to save as an image; null when the view has no plot or has not drawn it.
    virtual QCustomPlot *shownPlot() const { return nullptr; }
};
