// Matrix types shared by every part. Row-major, because that is how the GPU buffers and the
// heatmaps read them.
#pragma once

#include <Eigen/Core>

namespace flashstep {

template <class T>
using MatRM = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixRM = MatRM<double>;

}  // namespace flashstep
