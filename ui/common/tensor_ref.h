// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMetaType>

/// Which tensor of the open model, as the pages pass it to one another in signals: the file
/// (shard) that holds it and the position of its info record in that file. A plain value;
/// TensorHandle::find resolves it against a model.
struct TensorRef {
    int shard = -1;
    int index = -1;

    bool isValid() const { return shard >= 0 && index >= 0; }
    bool operator==(const TensorRef &) const = default;
};
Q_DECLARE_METATYPE(TensorRef)
