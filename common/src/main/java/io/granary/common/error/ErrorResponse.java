package io.granary.common.error;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The JSON body of every native-API error: {@code {"code":"BucketNotFound","message":"...","node":"t1"}}.
 *
 * @param code stable identifier of the condition
 * @param message what went wrong, for people
 * @param node id of the node that answered
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ErrorResponse(String code, String message, String node) {
}
