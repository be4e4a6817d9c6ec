package stats

import "math"

// MADScale makes the median absolute deviation a consistent estimate of a
// normal distribution's standard deviation.
const MADScale = 1.4826

// OutlierFence is the modified z-score above which a window is an outlier
// (Iglewicz and Hoaglin's 3.5): |x − median| > 3.5 × MADScale × MAD.
const OutlierFence = 3.5

// Robust is a sample's robust dispersion: how far its values typically lie
// from their median, unmoved by one or two wild values.
type Robust struct {
	// Median is the usual median (the mean of the two middle values for
	// an even count).
	Median float64
	// MAD is the median absolute deviation from Median.
	MAD float64
	// CV is MADScale × MAD ÷ Median: a robust coefficient of variation
	// (0.03 = 3 %). Defined only when Median > 0.
	CV        float64
	CVDefined bool
	// Outliers marks, per value in input order, those past OutlierFence.
	Outliers []bool
}

// RobustOf returns the robust dispersion of values; with fewer than three
// values no value is an outlier (a fence needs a middle to stand on).
func RobustOf(values []float64) (Robust, error) {
	if err := checkValues(values); err != nil {
		return Robust{}, err
	}
	var r Robust
	r.Median, _ = Quantile(values, 0.5)
	dev := make([]float64, len(values))
	for i, v := range values {
		dev[i] = math.Abs(v - r.Median)
	}
	r.MAD, _ = Quantile(dev, 0.5)
	if r.Median > 0 {
		r.CV, r.CVDefined = MADScale*r.MAD/r.Median, true
	}
	r.Outliers = make([]bool, len(values))
	if len(values) >= 3 {
		for i, d := range dev {
			r.Outliers[i] = d > OutlierFence*MADScale*r.MAD
		}
	}
	return r, nil
}
