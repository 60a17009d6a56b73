import type { PluginView } from '../shared/panelTypes'

/** What changed since the review, in the person's words: the version, the package, or the code under the same version. */
export function reviewReason(p: PluginView): string {
  const review = p.review
  if (!review) return `version ${p.version} is not the build you reviewed`
  switch (review.change) {
    case 'version':
      return `version ${p.version} replaced version ${review.reviewedVersion}, which you reviewed`
    case 'package':
      return `it now comes from the package ${review.installedPackage}, not ${review.reviewedPackage ?? 'the one you reviewed'}`
    case 'adapter':
      return `its code changed under the same version ${p.version} since you reviewed it`
    case 'unrecorded':
      return `your review of version ${review.reviewedVersion} was recorded without its build, so bridge cannot tell it is the same code`
  }
}

/** "Review needed" with what changed and a one-click review of the installed version. */
export function ReviewNotice({
  plugin: p,
  connected,
  onReview,
}: {
  plugin: PluginView
  connected: boolean
  onReview: () => void
}) {
  return (
    <p class="warning" data-testid="review-needed" data-change={p.review?.change ?? ''}>
      Review needed: {reviewReason(p)}, so its tools are off.{' '}
      <button type="button" data-testid="mark-reviewed" disabled={!connected} onClick={onReview}>
        Mark {p.version} reviewed
      </button>
    </p>
  )
}
