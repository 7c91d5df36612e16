// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/monkey/window_invariants.h"

#include "app/explorer/main_window.h"
#include "core/format/split_model.h"
#include "ui/compare/compare_page.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_page.h"
#include "ui/hex/hex_view.h"
#include "ui/importance/importance_page.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/document.h"
#include "ui/tensors/tensor_table_model.h"
#include "ui/tensors/tensors_page.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/tokenizer/vocabulary_model.h"
#include "ui/tokenizer/vocabulary_view.h"
#include "ui/weights/histogram_panel.h"
#include "ui/weights/value_grid_model.h"
#include "ui/weights/value_grid_view.h"
#include "ui/weights/weights_page.h"

#include <QFileInfo>
#include <QStringList>

namespace {

QString describe(const void *pointer)
{
    return pointer ? QStringLiteral("0x%1").arg(reinterpret_cast<quintptr>(pointer), 0, 16) : QStringLiteral("null");
}

QString modelName(const gguf::SplitModel *model)
{
    if (!model)
        return QStringLiteral("no model");
    return QStringLiteral("%1 (%2)").arg(QFileInfo(QString::fromStdString(model->primary().path())).fileName(),
                                         describe(model));
}

/// Says that `what` shows `shown` where the document's `expected` belongs.
void expect(QStringList &problems, const QString &what, const void *shown, const void *expected,
            const QString &shownName = {})
{
    if (shown != expected)
        problems << QStringLiteral("%1 shows %2, not the document's %3")
                        .arg(what, shownName.isEmpty() ? describe(shown) : shownName, describe(expected));
}

bool holdsTensorInfo(const gguf::SplitModel &model, const gguf::TensorInfo *info)
{
    for (const gguf::SplitModel::TensorRef &tensor : model.tensors())
        if (tensor.info == info)
            return true;
    return false;
}

void checkWeights(QStringList &problems, const WeightsPage &weights, const gguf::SplitModel *model)
{
    if (weights.tensor().isValid())
        expect(problems, QStringLiteral("Weights: the tensor"), weights.tensor().model.get(), model,
               modelName(weights.tensor().model.get()));
    const HistogramPanel &histogram = *weights.histogramPanel();
    const TensorHandle &tensor = histogram.tensor();
    if (tensor.isValid()) {
        expect(problems, QStringLiteral("Weights ▸ Histogram: the tensor"), tensor.model.get(), model,
               modelName(tensor.model.get()));
        // the statistics on show are of the tensor on show: all its elements are counted
        if (histogram.statistics() && histogram.statistics()->count != tensor.info().elements)
            problems << QStringLiteral("Weights ▸ Histogram: statistics of %1 elements shown for %2 of %3 elements")
                            .arg(histogram.statistics()->count)
                            .arg(tensor.name())
                            .arg(tensor.info().elements);
    } else if (histogram.statistics()) {
        problems << QStringLiteral("Weights ▸ Histogram: statistics shown without a tensor");
    }
    if (const gguf::TensorInfo *info = weights.valueGrid()->model()->tensor(); info && !holdsTensorInfo(*model, info))
        problems << QStringLiteral("Weights ▸ Values: shows a tensor (%1) that is not one of the document's")
                        .arg(QString::fromUtf8(info->name.data(), static_cast<qsizetype>(info->name.size())));
}

void checkBytes(QStringList &problems, const HexPage &hex, const gguf::SplitModel &model)
{
    const int shard = hex.shard();
    if (shard < 0 || static_cast<size_t>(shard) >= model.shards().size()) {
        problems << QStringLiteral("Bytes: shows shard %1 of a model of %2").arg(shard).arg(model.shards().size());
        return;
    }
    const gguf::GgufFile *file = model.shards()[static_cast<size_t>(shard)].file.get();
    expect(problems, QStringLiteral("Bytes: the hex view"), hex.view()->file(), file);
    if (const HexAnnotator *annotator = hex.view()->annotator())
        expect(problems, QStringLiteral("Bytes: the hex view's byte map"), &annotator->file(), file);
    if (const auto annotator = hex.annotator())
        expect(problems, QStringLiteral("Bytes: the page's byte map"), &annotator->file(), file);
}

void checkTokenizer(QStringList &problems, const TokenizerPage &tokenizer, const gguf::SplitModel &model)
{
    expect(problems, QStringLiteral("Tokenizer: the file"), tokenizer.file().get(), model.primaryShared().get());
    expect(problems, QStringLiteral("Tokenizer: the vocabulary table"),
           tokenizer.vocabularyView()->model()->vocabulary(), tokenizer.vocabulary().get());
    // the rows of a search or an order (computed on a worker) are ids of this vocabulary
    const VocabularyModel &tokens = *tokenizer.vocabularyView()->model();
    const int rows = tokens.rowCount();
    if (rows > tokens.tokenCount())
        problems << QStringLiteral("Tokenizer: %1 rows shown of a vocabulary of %2").arg(rows).arg(tokens.tokenCount());
    for (const int row : {0, rows / 2, rows - 1})
        if (const auto id = tokens.idAt(row); rows > 0 && (!id || *id >= static_cast<uint32_t>(tokens.tokenCount())))
            problems << QStringLiteral("Tokenizer: row %1 shows token %2 of a vocabulary of %3")
                            .arg(row)
                            .arg(id ? QString::number(*id) : QStringLiteral("none"))
                            .arg(tokens.tokenCount());
}

} // namespace

QString WindowInvariants::check(const MainWindow &window)
{
    const auto shared = window.document()->model();
    const gguf::SplitModel *model = shared.get();
    if (!model)
        return {};
    QStringList problems;
    expect(problems, QStringLiteral("Overview"), window.page<OverviewPage>()->model().get(), model,
           modelName(window.page<OverviewPage>()->model().get()));
    expect(problems, QStringLiteral("Metadata"), window.page<MetadataPage>()->model()->file(), &model->primary());
    expect(problems, QStringLiteral("Tensors"), window.page<TensorsPage>()->model()->model(), model,
           modelName(window.page<TensorsPage>()->model()->model()));
    checkWeights(problems, *window.page<WeightsPage>(), model);
    checkTokenizer(problems, *window.page<TokenizerPage>(), *model);
    checkBytes(problems, *window.page<HexPage>(), *model);
    expect(problems, QStringLiteral("Compare: A"), window.page<ComparePage>()->model().get(), model,
           modelName(window.page<ComparePage>()->model().get()));
    if (const auto other = window.page<ComparePage>()->other(); other && other != window.otherDocument()->model())
        problems << QStringLiteral("Compare: B is %1, not the other document's %2")
                        .arg(modelName(other.get()), modelName(window.otherDocument()->model().get()));
    expect(problems, QStringLiteral("Importance"), window.page<ImportancePage>()->model().get(), model,
           modelName(window.page<ImportancePage>()->model().get()));
    return problems.join(u'\n');
}
