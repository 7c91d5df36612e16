// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/tensor_ref.h"

#include <QMetaType>
#include <QtGlobal>

/// A place in a model that one page points at and another shows: a metadata entry, a tensor, a
/// token or a byte range, of the open model (side A) or of the model it is compared with (B). The
/// one value of navigation between pages: a page says Page::linkActivated(Link), the window hands
/// it to every other page (Page::follow) and brings forward the first that shows it, or to the
/// window showing B.
struct Link {
    enum class Target : uint8_t { MetadataEntry, Tensor, Token, Bytes };
    enum class Side : uint8_t {
        A, ///< the model open in this window
        B, ///< the model the Compare page compares it with
    };
    enum class Reveal : uint8_t {
        Go,           ///< the user asked to go there: the page that shows it comes forward
        InBackground, ///< a selection the other pages follow where they are (the tab stays)
    };
    /// `shard` of a Bytes link for the model's primary file (where the metadata is).
    static constexpr int kPrimaryShard = -1;

    Target target = Target::Bytes;
    Side side = Side::A;
    Reveal reveal = Reveal::Go;
    int shard = kPrimaryShard; ///< Tensor and Bytes: the file (shard) of the model, 0-based
    int index = -1;            ///< MetadataEntry: the entry's position; Tensor: its info record
    quint64 token = 0;         ///< Token: the id
    quint64 offset = 0;        ///< Bytes: the first byte, in the shard's file
    quint64 size = 0;          ///< Bytes: how many (0: the field at `offset`)

    static Link metadataEntry(int index) { return Link{Target::MetadataEntry, Side::A, Reveal::Go, 0, index}; }
    static Link tensor(TensorRef tensor)
    {
        return Link{Target::Tensor, Side::A, Reveal::Go, tensor.shard, tensor.index};
    }
    static Link tokenId(quint64 id) { return Link{Target::Token, Side::A, Reveal::Go, 0, -1, id}; }
    static Link bytes(int shard, quint64 offset, quint64 size)
    {
        return Link{Target::Bytes, Side::A, Reveal::Go, shard, -1, 0, offset, size};
    }

    /// The same place in the model of `s`.
    Link on(Side s) const
    {
        Link l = *this;
        l.side = s;
        return l;
    }
    /// The same place, followed where the pages are.
    Link inBackground() const
    {
        Link l = *this;
        l.reveal = Reveal::InBackground;
        return l;
    }
    TensorRef tensorRef() const { return TensorRef{shard, index}; }
    bool operator==(const Link &) const = default;
};
Q_DECLARE_METATYPE(Link)
